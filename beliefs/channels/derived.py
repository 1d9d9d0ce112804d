"""Derived channel: beliefs and facts close in meaning to the query.

Beliefs come first in what a tight budget can hold: one belief stands for every episode
it summarises. Only beliefs that still hold (active, contested or stale — never
invalidated or retracted) and facts that are valid and not already folded into a belief
are returned. With ``as_of``, only what the bank had learned by then.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db.models import Exists, OuterRef, Q, QuerySet

from banks.models import Bank
from beliefs.channels import vectors
from beliefs.channels.vectors import bank_is_small
from beliefs.models import Belief, Evidence, Fact, Play
from memoryhub.tokens import count_tokens

LIVE_BELIEF_STATUSES = (Belief.Status.ACTIVE, Belief.Status.CONTESTED, Belief.Status.STALE)
_MAX_EVIDENCE_IDS = 50


@dataclass(frozen=True)
class DerivedHit:
    kind: str  # "belief", "fact" or "play"
    item_id: int
    similarity: float
    text: str
    tokens: int
    episode_ids: tuple[int, ...]
    occurred_at: datetime
    recorded_at: datetime
    subject: str
    provenance: str
    details: dict


def belief_text(belief: Belief) -> str:
    return (
        f"{belief.statement} [belief: {belief.status}; {belief.proof_count} supporting episodes; "
        f"confidence {belief.confidence:.2f}]"
    )


def _candidates(bank_id: int, as_of: datetime | None, kinds: tuple[str, ...]) -> dict[str, QuerySet]:
    """Per kind, the rows that may be recalled: beliefs that still hold, valid facts no belief has folded in, plays."""
    candidates = {}
    if "belief" in kinds:
        beliefs = Belief.objects.filter(bank_id=bank_id, status__in=LIVE_BELIEF_STATUSES)
        candidates["belief"] = beliefs.filter(formed_at__lte=as_of) if as_of is not None else beliefs
    if "fact" in kinds:
        in_belief = Evidence.objects.filter(fact_id=OuterRef("pk"), stance="supports")
        facts = Fact.objects.filter(bank_id=bank_id, quarantined=False, negated=False).filter(~Exists(in_belief))
        if as_of is None:
            facts = facts.filter(invalid_at__isnull=True)
        else:
            facts = facts.filter(created_at__lte=as_of).exclude(Q(invalid_at__lte=as_of) & Q(expired_at__lte=as_of))
        candidates["fact"] = facts
    if "play" in kinds:
        candidates["play"] = Play.objects.filter(bank_id=bank_id)
    return candidates


def search(
    *,
    bank: Bank,
    query_vector: np.ndarray,
    limit: int,
    as_of: datetime | None = None,
    kinds: tuple[str, ...] = ("belief", "fact", "play"),
    exact: bool | None = None,
    vector: str | None = None,
) -> list[DerivedHit]:
    """Up to ``limit`` beliefs, facts and plays at least ``DERIVED_MIN_SIMILARITY`` similar to the query.
    ``vector``: the query vector's text, when recall has made it already.

    One query ranks every kind; rows are read only for what it found."""
    if exact is None:
        exact = bank_is_small(bank)
    nearest = vectors.nearest_of_kinds(
        _candidates,
        bank_id=bank.pk,
        as_of=as_of,
        kinds=kinds,
        vector=vector or vectors.query_text(query_vector),
        limit=limit,
        max_distance=1 - settings.MEMORYHUB["DERIVED_MIN_SIMILARITY"],
        exact=exact,
    )
    similarity: dict[str, dict[int, float]] = {kind: {} for kind in kinds}
    for kind, pk, distance in sorted(nearest, key=lambda row: (row[2], row[1])):
        similarity[kind][pk] = 1.0 - float(distance)
    hits: list[DerivedHit] = []
    for kind in ("belief", "fact", "play"):  # a fixed order of kinds, whatever order ``kinds`` names them in
        if similarity.get(kind):
            hits.extend(_READERS[kind](bank, similarity[kind]))
    return hits


def _hit(kind: str, item_id: int, similarity: float, text: str, **fields) -> DerivedHit:
    return DerivedHit(kind=kind, item_id=item_id, similarity=similarity, text=text, tokens=count_tokens(text), **fields)


def _belief_hits(bank: Bank, similarity: dict[int, float]) -> list[DerivedHit]:
    by_id = Belief.objects.filter(bank=bank, pk__in=similarity).defer("search_vector", "embedding").in_bulk()
    support = _supporting_episodes(bank, list(similarity))
    hits = []
    for pk, score in similarity.items():
        belief = by_id[pk]
        details = {
            "status": belief.status, "confidence": belief.confidence, "proof_count": belief.proof_count,
            "contradiction_count": belief.contradiction_count, "valid_from": belief.valid_from.isoformat(),
            "valid_to": belief.valid_to.isoformat() if belief.valid_to else None,
        }  # fmt: skip
        hits.append(_hit("belief", pk, score, belief_text(belief), episode_ids=tuple(support.get(pk, ())),
                         occurred_at=belief.last_confirmed_at, recorded_at=belief.formed_at, subject=belief.subject,
                         provenance="derived", details=details))  # fmt: skip
    return hits


def _fact_hits(bank: Bank, similarity: dict[int, float]) -> list[DerivedHit]:
    by_id = Fact.objects.filter(bank=bank, pk__in=similarity).defer("search_vector", "embedding").in_bulk()
    hits = []
    for pk, score in similarity.items():
        fact = by_id[pk]
        details = {
            "valid_at": fact.valid_at.isoformat(),
            "invalid_at": fact.invalid_at.isoformat() if fact.invalid_at else None,
            "quote": fact.quote, "extractor": fact.extractor,
        }  # fmt: skip
        hits.append(_hit("fact", pk, score, fact.statement, episode_ids=(fact.episode_id,), occurred_at=fact.valid_at,
                         recorded_at=fact.created_at, subject=fact.subject, provenance=fact.provenance,
                         details=details))  # fmt: skip
    return hits


def _play_hits(bank: Bank, similarity: dict[int, float]) -> list[DerivedHit]:
    by_id = Play.objects.filter(bank=bank, pk__in=similarity).defer("embedding").in_bulk()
    hits = []
    for pk, score in similarity.items():
        play = by_id[pk]
        details = {"play": play.play, "segment": play.segment, "review_item_id": play.review_item_id}
        hits.append(_hit("play", pk, score, f"[accepted lesson] {play.text}", episode_ids=(),
                         occurred_at=play.created_at, recorded_at=play.created_at,
                         subject=play.segment or play.signature, provenance="reviewed", details=details))  # fmt: skip
    return hits


_READERS = {"belief": _belief_hits, "fact": _fact_hits, "play": _play_hits}


def _supporting_episodes(bank: Bank, belief_ids: list[int]) -> dict[int, list[int]]:
    """Each belief's supporting episodes, most recent first (capped)."""
    rows = (
        Evidence.objects.filter(bank=bank, belief_id__in=belief_ids, stance="supports")
        .order_by("belief_id", "-observed_at", "-id")
        .values_list("belief_id", "episode_id")
    )
    result: dict[int, list[int]] = {}
    for belief_id, episode_id in rows:
        ids = result.setdefault(belief_id, [])
        if len(ids) < _MAX_EVIDENCE_IDS:
            ids.append(episode_id)
    return result
