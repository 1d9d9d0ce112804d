"""Erasure of mentions: a subject's name and identifiers inside other subjects' memory.

An erasure request names a subject and optionally aliases and identifiers (a full name,
an e-mail, a phone number, an account id). Its own episodes are deleted
(``forget.subjects.erasure_request_run``); here every *mention* elsewhere in the bank is replaced
in place by ``[erased]``:

- episodes of other subjects (content, every string in metadata, thread): then their
  facts and evidence, terms, entities, embeddings, belief wording and mental models are
  re-derived from the redacted text (``rederive.episodes_rederive``, the step the
  Memory Defense re-scan uses);
- whatever still holds a mention after that (beliefs and versions, facts, evidence,
  entity names and aliases, mental models, review items, plays, workload records,
  queued async items) is redacted field by field.

Matching is case-insensitive and tolerant of separators: ``Zora Lemaire`` matches
``zora-lemaire``; a phone number matches with any grouping (its last ten digits), so
``+1 (415) 555-0100`` matches ``415.555.0100``. Terms are read in their Unicode
compatibility form, so ``Ｚｏｒａ`` looks for ``zora``.

An alias needs ``MIN_ALIAS_CHARACTERS`` letters or digits, or a phone number: matching
is by whole words, so an alias such as ``ok`` or ``is`` would rewrite most of a bank.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from django.db.models import Model, Q, TextField
from django.db.models.functions import Cast

from banks.models import Bank
from beliefs.models import Belief, BeliefVersion, Entity, Episode, Evidence, Fact, MentalModel, Play, RetainBatch
from beliefs.services.rederive import ERASED, episodes_rederive
from reviews.models import ReviewItem

MIN_ALIAS_CHARACTERS = 4
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def _phone_digits(term: str) -> str:
    """The digits of ``term`` when it reads as a phone number (7 or more digits, mostly digits), else ``""``."""
    digits = re.sub(r"\D", "", term)
    if len(digits) >= 7 and len(digits) >= 0.6 * len(re.sub(r"\s", "", term)):
        return digits
    return ""


def alias_too_short(alias: str) -> bool:
    """Whether ``alias`` has fewer than ``MIN_ALIAS_CHARACTERS`` letters or digits (a phone number never is)."""
    term = unicodedata.normalize("NFKC", alias or "").strip()
    if _phone_digits(term):
        return False
    return sum(len(token) for token in _TOKEN.findall(term)) < MIN_ALIAS_CHARACTERS


@dataclass(frozen=True)
class MentionMatcher:
    """Finds the mentions of a set of terms; ``core`` patterns work in Python and in PostgreSQL regexes."""

    cores: tuple[str, ...]
    pattern: re.Pattern

    @classmethod
    def for_terms(cls, terms) -> MentionMatcher | None:
        cores = sorted({core for term in terms if (core := _core(term))}, key=len, reverse=True)
        if not cores:
            return None
        union = "|".join(f"(?:{core})" for core in cores)
        return cls(tuple(cores), re.compile(rf"(?<![^\W_])(?:{union})(?![^\W_])", re.IGNORECASE))

    def redact_text(self, text: str) -> str:
        return self.pattern.sub(ERASED, text)

    def redact(self, value):
        """``value`` (text or any JSON) with every mention replaced; object keys too."""
        if isinstance(value, str):
            return self.redact_text(value)
        if isinstance(value, dict):
            return {self.redact_text(key): self.redact(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.redact(item) for item in value]
        return value

    def rows(self, queryset, fields: list[str]):
        """Rows of ``queryset`` where any of ``fields`` may hold a mention (a coarse database filter)."""
        texts = {f"mention_text_{field}": Cast(field, TextField()) for field in fields}
        condition = Q()
        for name in texts:
            for core in self.cores:
                condition |= Q(**{f"{name}__iregex": core})
        return queryset.annotate(**texts).filter(condition)


def _core(term: str) -> str:
    """A separator-tolerant pattern for ``term``: its word pieces, or for a phone number its last ten digits."""
    term = unicodedata.normalize("NFKC", term or "").strip()
    digits = _phone_digits(term)
    if digits:
        # The national number in any grouping, with or without a country code in front.
        return "(?:[0-9]{1,3}[^0-9]{0,3})?" + "[^0-9]{0,3}".join(digits[-10:])
    tokens = _TOKEN.findall(term.lower())
    if not tokens or sum(len(token) for token in tokens) < 2:
        return ""
    return "[^a-z0-9]{0,3}".join(re.escape(token) for token in tokens)


# Derived fields that may quote an episode's text, per model (after episodes are re-derived). Apps built on the
# engine add their own models' fields with ``register_mention_fields`` (the workloads do, at start-up).
_MENTION_FIELDS: list[tuple[type[Model], list[str]]] = [
    (Fact, ["subject", "subject_key", "object", "object_key", "statement", "quote"]),
    (Belief, ["subject", "subject_key", "object", "object_key", "statement"]),
    (Evidence, ["quote"]),
    (BeliefVersion, ["old_statement", "new_statement"]),
    (MentalModel, ["question", "answer", "citations"]),
    (Entity, ["name", "aliases"]),
    (ReviewItem, ["title", "body", "payload", "comment"]),
    (Play, ["text"]),
    (RetainBatch, ["items"]),
]


def register_mention_fields(model: type[Model], fields: list[str]) -> None:
    """Erasure redacts mentions in these fields of ``model``'s rows too (the model has a ``bank`` key)."""
    if (model, fields) not in _MENTION_FIELDS:
        _MENTION_FIELDS.append((model, fields))


def mentions_erase(*, bank: Bank, terms: list[str]) -> dict[str, int]:
    """Redact every mention of ``terms`` in ``bank`` and re-derive what was built from it. Inside a transaction.

    Returns counts: ``episodes_redacted`` and ``records_redacted`` (derived and workload rows).
    """
    matcher = MentionMatcher.for_terms(terms)
    if matcher is None:
        return {"episodes_redacted": 0, "records_redacted": 0}
    changes, threads = {}, {}
    for episode in matcher.rows(Episode.objects.filter(bank=bank), ["content", "metadata", "thread"]).only(
        "id", "content", "metadata", "thread"
    ):
        content, metadata = matcher.redact_text(episode.content), matcher.redact(episode.metadata)
        if (content, metadata) != (episode.content, episode.metadata):
            changes[episode.pk] = (content, metadata)
        if matcher.redact_text(episode.thread) != episode.thread:
            threads[episode.pk] = matcher.redact_text(episode.thread)
    if changes:
        episodes_rederive(bank=bank, changes=changes)
    for pk, thread in threads.items():
        Episode.objects.filter(bank=bank, pk=pk).update(thread=thread)
    records = sum(_redact_leftovers(bank, model, fields, matcher) for model, fields in _MENTION_FIELDS)
    return {"episodes_redacted": len(set(changes) | set(threads)), "records_redacted": records}


def _redact_leftovers(bank: Bank, model, fields: list[str], matcher: MentionMatcher) -> int:
    changed_rows = 0
    for row in matcher.rows(model.objects.filter(bank=bank), fields):
        changed = {}
        for field in fields:
            value = getattr(row, field)
            redacted = matcher.redact(value)
            if redacted != value:
                changed[field] = redacted
        if not changed:
            continue
        if model.__name__ == "Entity":
            changed.setdefault("aliases", row.aliases)
            changed["aliases"] = [alias for alias in changed["aliases"] if ERASED not in alias]
            if ERASED in changed.get("name", row.name):
                # An entity named by the erased subject carries nothing else worth keeping.
                row.delete()
                changed_rows += 1
                continue
        model.objects.filter(pk=row.pk).update(**changed)
        changed_rows += 1
    return changed_rows
