"""Rebuild what was derived from episodes whose text changed or went away.

Erasure (of a subject's episodes or of their mentions) and the Memory Defense re-scan
both end the same way: facts and evidence are rebuilt from the remaining text, beliefs
that quoted it are re-assessed, those left without support keep their row as
``retracted`` but lose every erased word, and mental models are rebuilt now, in the
same transaction, so nothing derived outlives its source.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from banks.models import Bank
from beliefs.defense.apply import metadata_text, scrub_value
from beliefs.defense.injection import injection_assessment
from beliefs.models import Belief, BeliefVersion, Episode, EpisodeExtraction, Fact
from beliefs.services.consolidate import lock_bank_for_consolidation, slots_refresh
from beliefs.services.indexing import TIME_FIELDS, episode_time_set, episodes_index, episodes_unindex
from beliefs.services.mental_models import mental_models_refresh
from memoryhub.embeddings import embed_texts
from memoryhub.queues import TaskName, enqueue_on_commit
from memoryhub.tokens import count_tokens

ERASED = "[erased]"


def episodes_rederive(*, bank: Bank, changes: dict[int, tuple[str, dict]], ip_addresses: bool | str = "public") -> None:
    """Replace episodes' content/metadata and rebuild everything derived from them. Inside a transaction."""
    ids = sorted(changes)
    lock_bank_for_consolidation(bank)
    facts = Fact.objects.filter(bank=bank, episode_id__in=ids)
    slots = set(facts.values_list("subject_key", "predicate").distinct())
    facts.delete()  # evidence goes with them; re-extraction reads the redacted text
    episodes_unindex(bank=bank, episode_ids=ids)
    vectors = embed_texts([changes[pk][0] for pk in ids])
    rows = list(Episode.objects.filter(bank=bank, pk__in=ids).order_by("id"))
    for row, vector in zip(rows, vectors, strict=True):
        content, metadata = changes[row.pk]
        row.content, row.metadata, row.embedding = content, metadata, vector
        row.content_hash = hashlib.sha256(content.encode()).hexdigest()
        row.token_count = count_tokens(content)
        flags, row.injection_spans = injection_assessment(content, metadata_text(metadata))
        row.injection_flags = flags + (["recall_echo"] if "recall_echo" in (row.injection_flags or []) else [])
        episode_time_set(row)  # (in the same update: a second one would rewrite every index entry again)
    Episode.objects.bulk_update(
        rows,
        [
            "content",
            "metadata",
            "embedding",
            "content_hash",
            "token_count",
            "injection_flags",
            "injection_spans",
            *TIME_FIELDS,
        ],
    )
    EpisodeExtraction.objects.filter(episode_id__in=ids).update(extracted_at=None)  # read again
    episodes_index(bank=bank, episode_ids=ids, index_time=False)
    outcome, _, _ = beliefs_rederive(bank=bank, slots=slots)
    for version in BeliefVersion.objects.filter(belief_id__in=outcome.belief_ids):
        old = scrub_value(version.old_statement, Counter(), ip_addresses)
        new = scrub_value(version.new_statement, Counter(), ip_addresses)
        if (old, new) != (version.old_statement, version.new_statement):
            BeliefVersion.objects.filter(pk=version.pk).update(old_statement=old, new_statement=new)
    enqueue_on_commit(TaskName.EXTRACT_BANK, bank_id=bank.pk, tenant_id=bank.tenant_id)


def beliefs_rederive(*, bank: Bank, slots: set) -> tuple:
    """After evidence was removed or rewritten: re-assess the slots' beliefs, strip the wording of those left
    without support, and rebuild mental models now. Returns (slot outcome, beliefs scrubbed, models rebuilt)."""
    outcome = slots_refresh(bank=bank, slots=slots, cause_hint=BeliefVersion.Cause.EVIDENCE_REMOVED)
    scrubbed = _scrub_unsupported(bank, outcome.belief_ids)
    return outcome, scrubbed, mental_models_refresh(bank=bank)


def _scrub_unsupported(bank: Bank, belief_ids) -> int:
    """Beliefs with no evidence left keep their row (status ``retracted``) but none of the erased wording."""
    orphans = list(
        Belief.objects.filter(bank=bank, pk__in=belief_ids, status=Belief.Status.RETRACTED, evidence__isnull=True)
    )
    if not orphans:
        return 0
    vector = embed_texts([ERASED])[0]
    for belief in orphans:
        belief.statement = belief.subject = belief.object = ERASED
        belief.subject_key = belief.object_key = belief.key = f"erased-{belief.pk}"
        belief.embedding = vector
        belief.save()
    BeliefVersion.objects.filter(belief__in=orphans).update(old_statement=ERASED, new_statement=ERASED)
    return len(orphans)
