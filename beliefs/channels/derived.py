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
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from pgvector.django import CosineDistance

from banks.models import Bank
from beliefs.channels.semantic import bank_is_small
from beliefs.models import Belief, Evidence, Fact, Play
from memoryhub.tokens import count_tokens

LIVE_BELIEF_STATUSES = (Belief.Status.ACTIVE, Belief.Status.CONTESTED, Belief.Status.STALE)
_MAX_EVIDENCE_IDS = 50


@dataclass(frozen=True)
class DerivedHit:
    kind: str  # "belief" or "fact"
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


def _nearest(queryset, query_vector: np.ndarray, limit: int, exact: bool) -> list:
    max_distance = 1 - settings.MEMORYHUB["DERIVED_MIN_SIMILARITY"]
    queryset = (
        queryset.annotate(distance=CosineDistance("embedding", query_vector))
        .filter(distance__lte=max_distance)
        .order_by("distance", "id")[:limit]
    )
    with transaction.atomic(), connection.cursor() as cursor:
        if exact:
            cursor.execute("SELECT set_config('enable_indexscan', 'off', true)")
        else:
            cursor.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
        return list(queryset)


def search(
    *,
    bank: Bank,
    query_vector: np.ndarray,
    limit: int,
    as_of: datetime | None = None,
    kinds: tuple[str, ...] = ("belief", "fact", "play"),
    exact: bool | None = None,
) -> list[DerivedHit]:
    """Up to ``limit`` beliefs, facts and plays at least ``DERIVED_MIN_SIMILARITY`` similar to the query."""
    if exact is None:
        exact = bank_is_small(bank)
    hits: list[DerivedHit] = []
    if "belief" in kinds:
        beliefs = Belief.objects.filter(bank=bank, status__in=LIVE_BELIEF_STATUSES).defer("search_vector")
        if as_of is not None:
            beliefs = beliefs.filter(formed_at__lte=as_of)
        found = _nearest(beliefs, query_vector, limit, exact)
        support = _supporting_episodes(bank, [b.pk for b in found])
        for belief in found:
            text = belief_text(belief)
            hits.append(
                DerivedHit(
                    kind="belief",
                    item_id=belief.pk,
                    similarity=1.0 - float(belief.distance),
                    text=text,
                    tokens=count_tokens(text),
                    episode_ids=tuple(support.get(belief.pk, ())),
                    occurred_at=belief.last_confirmed_at,
                    recorded_at=belief.formed_at,
                    subject=belief.subject,
                    provenance="derived",
                    details={
                        "status": belief.status,
                        "confidence": belief.confidence,
                        "proof_count": belief.proof_count,
                        "contradiction_count": belief.contradiction_count,
                        "valid_from": belief.valid_from.isoformat(),
                        "valid_to": belief.valid_to.isoformat() if belief.valid_to else None,
                    },
                )
            )
    if "fact" in kinds:
        in_belief = Evidence.objects.filter(fact_id=OuterRef("pk"), stance="supports")
        facts = Fact.objects.filter(bank=bank, quarantined=False).defer("search_vector").filter(~Exists(in_belief))
        if as_of is None:
            facts = facts.filter(invalid_at__isnull=True)
        else:
            facts = facts.filter(created_at__lte=as_of).exclude(Q(invalid_at__lte=as_of) & Q(expired_at__lte=as_of))
        for fact in _nearest(facts.filter(negated=False), query_vector, limit, exact):
            hits.append(
                DerivedHit(
                    kind="fact",
                    item_id=fact.pk,
                    similarity=1.0 - float(fact.distance),
                    text=fact.statement,
                    tokens=count_tokens(fact.statement),
                    episode_ids=(fact.episode_id,),
                    occurred_at=fact.valid_at,
                    recorded_at=fact.created_at,
                    subject=fact.subject,
                    provenance=fact.provenance,
                    details={
                        "valid_at": fact.valid_at.isoformat(),
                        "invalid_at": fact.invalid_at.isoformat() if fact.invalid_at else None,
                        "quote": fact.quote,
                        "extractor": fact.extractor,
                    },
                )
            )
    if "play" in kinds:
        for play in _nearest(Play.objects.filter(bank=bank), query_vector, limit, exact=True):
            text = f"[accepted lesson] {play.text}"
            hits.append(
                DerivedHit(
                    kind="play",
                    item_id=play.pk,
                    similarity=1.0 - float(play.distance),
                    text=text,
                    tokens=count_tokens(text),
                    episode_ids=(),
                    occurred_at=play.created_at,
                    recorded_at=play.created_at,
                    subject=play.segment or play.signature,
                    provenance="reviewed",
                    details={"play": play.play, "segment": play.segment, "review_item_id": play.review_item_id},
                )
            )
    return hits


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
