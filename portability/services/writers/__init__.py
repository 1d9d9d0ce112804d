"""One writer per record type: resolve natural keys, insert what is new, count the rest.

Each writer gets the batch's records of its type (already checked, defended and
embedded) and returns ``(created counts, duplicates)``. A reference that does not
resolve in the bank, or a value outside its field's choices, raises ``Unresolved`` with
the record's line.

The trust model: a file is untrusted text unless an admin imports it with
``trust_file``. Episodes are always stored like retained ones (``writers.episodes``);
derived records are written only from a trusted file (``writers.derived``); review
decisions and plays need a trusted file or a person (``writers.reviews``).
"""

from __future__ import annotations

from portability.services.writers.common import Context, Unresolved
from portability.services.writers.derived import (
    write_beliefs,
    write_evidence,
    write_fact_invalidations,
    write_facts,
    write_versions,
)
from portability.services.writers.episodes import write_episodes
from portability.services.writers.reviews import write_mental_models, write_plays, write_review_items

#: Records an untrusted file may not write as they are: the workers derive them from the episodes instead.
DERIVED = ("fact", "fact_invalidation", "belief", "evidence", "belief_version")

WRITERS = {
    "episode": write_episodes,
    "fact": write_facts,
    "fact_invalidation": write_fact_invalidations,
    "belief": write_beliefs,
    "evidence": write_evidence,
    "belief_version": write_versions,
    "review_item": write_review_items,
    "play": write_plays,
    "mental_model": write_mental_models,
}

__all__ = ["DERIVED", "WRITERS", "Context", "Unresolved"]
