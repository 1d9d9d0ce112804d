"""Extractors turn one episode into fact drafts; the extract service stores them.

Three extractors share one output type: ``structured`` maps typed events carried in
``metadata['event']`` (alerts, dismissals, interventions, outcomes …) and explicit
``metadata['facts']`` straight to facts; ``rules`` reads simple subject–predicate–object
sentences out of free text; ``llm`` asks an OpenAI-compatible model for the same shape.
Every draft points at an exact span of the episode's content, so every fact — and every
belief built from it — can quote its source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from beliefs.engine.entities import entity_key

MAX_OBJECT_CHARS = 200


@dataclass(frozen=True)
class FactDraft:
    subject: str
    predicate: str
    object: str
    quote_start: int
    quote_end: int
    extractor: str
    negated: bool = False
    hedged: bool = False
    functional: bool = False
    valid_at: datetime | None = None

    @property
    def subject_key(self) -> str:
        return claim_key(self.subject)

    @property
    def object_key(self) -> str:
        return claim_key(self.object)

    @property
    def statement(self) -> str:
        return claim_statement(self.subject, self.predicate, self.object, negated=self.negated)


def claim_key(text: str) -> str:
    """Normalised identity of a subject or object ("The DB-3 host" and "db-3 host" match)."""
    words = [w for w in re.findall(r"[\w@.:/-]+", text.lower()) if w not in {"the", "a", "an"}]
    return entity_key(" ".join(words))[:255] or text.strip().lower()[:255]


def claim_statement(subject: str, predicate: str, obj: str, *, negated: bool = False) -> str:
    verb = predicate if not negated else f"not {predicate}"
    return f"{subject} {verb} {obj}".strip()


def line_span(content: str, needle: str | None) -> tuple[int, int]:
    """The span of the line of ``content`` that holds ``needle`` (whole content, capped, when absent)."""
    if needle:
        index = content.lower().find(needle.lower())
        if index >= 0:
            start = content.rfind("\n", 0, index) + 1
            end = content.find("\n", index)
            end = len(content) if end < 0 else end
            return _capped(content, start, end, index)
    return _capped(content, 0, len(content), 0)


def _capped(content: str, start: int, end: int, anchor: int) -> tuple[int, int]:
    while start < end and content[start].isspace():
        start += 1
    while end > start and content[end - 1].isspace():
        end -= 1
    if end - start > 400:  # keep quotes readable: a window around the anchor
        start = max(start, anchor - 150)
        end = min(end, start + 400)
    if end <= start:
        return 0, max(1, len(content))
    return start, end
