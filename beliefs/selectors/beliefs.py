"""Read queries over facts, beliefs and mental models. Every selector takes an authorised ``bank``."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Prefetch, Q, QuerySet

from banks.models import Bank
from beliefs.models import Belief, BeliefVersion, Evidence, Fact, MentalModel
from beliefs.selectors.episodes import ids_in


def fact_list(*, bank: Bank, valid_at: datetime | None = None, known_at: datetime | None = None) -> QuerySet[Fact]:
    """Facts of ``bank``; with ``valid_at`` only those true then, as the bank knew it at ``known_at``.

    Bi-temporal: a fact is visible at ``known_at`` once created; its ``invalid_at`` counts
    only if the bank had learned it by ``known_at`` (``expired_at <= known_at``).
    """
    queryset = Fact.objects.filter(bank=bank).defer("embedding", "search_vector")
    if known_at is not None:
        queryset = queryset.filter(created_at__lte=known_at)
    if valid_at is not None:
        closed = Q(invalid_at__lte=valid_at)
        if known_at is not None:
            closed &= Q(expired_at__lte=known_at)
        queryset = queryset.filter(valid_at__lte=valid_at).exclude(closed)
    return queryset.order_by("-valid_at", "-id")


def fact_get(*, bank: Bank, fact_id: int) -> Fact | None:
    return fact_list(bank=bank).filter(pk=fact_id).first()


def belief_list(*, bank: Bank) -> QuerySet[Belief]:
    """Beliefs of ``bank``, most confident first, without vectors."""
    return Belief.objects.filter(bank=bank).defer("embedding", "search_vector").order_by("-confidence", "-id")


def belief_get(*, bank: Bank, belief_id: int) -> Belief | None:
    """One belief with its evidence (strongest first) and version history."""
    return (
        belief_list(bank=bank)
        .filter(pk=belief_id)
        .prefetch_related(
            Prefetch("evidence", queryset=Evidence.objects.order_by("stance", "-observed_at", "id")),
            Prefetch("versions", queryset=BeliefVersion.objects.order_by("version")),
        )
        .first()
    )


def beliefs_as_of(*, bank: Bank, at: datetime) -> list[tuple[Belief, BeliefVersion]]:
    """What the bank believed at ``at``: each belief formed by then, with its latest version at that time."""
    versions = (
        BeliefVersion.objects.filter(bank=bank, effective_at__lte=at)
        .order_by("belief_id", "-effective_at", "-version")
        .distinct("belief_id")
    )
    latest = {v.belief_id: v for v in versions}
    beliefs = belief_list(bank=bank).filter(pk__in=latest.keys())
    pairs = [(belief, latest[belief.pk]) for belief in beliefs]
    return sorted(pairs, key=lambda pair: (-pair[1].new_confidence, -pair[0].pk))


def mental_model_list(*, bank: Bank) -> QuerySet[MentalModel]:
    return MentalModel.objects.filter(bank=bank).defer("question_embedding").order_by("name")


def mental_model_get(*, bank: Bank, name: str) -> MentalModel | None:
    """A stored read: one row, no retrieval, no model call."""
    return mental_model_list(bank=bank).filter(name=name).first()


def derived_coverage(*, bank: Bank, hits: list, episode_ids: list[int]) -> dict[tuple[str, int], set[int]]:
    """For each belief or fact hit, which of ``episode_ids`` it stands for (a belief: its supporting episodes)."""
    coverage: dict[tuple[str, int], set[int]] = {(hit.kind, hit.item_id): set() for hit in hits}
    belief_ids = [hit.item_id for hit in hits if hit.kind == "belief"]
    if belief_ids and episode_ids:
        rows = Evidence.objects.filter(
            bank=bank, belief_id__in=belief_ids, episode_id__in=ids_in(episode_ids), stance=Evidence.Stance.SUPPORTS
        ).values_list("belief_id", "episode_id")
        for belief_id, episode_id in rows:
            coverage[("belief", belief_id)].add(episode_id)
    wanted = set(episode_ids)
    for hit in hits:
        if hit.kind == "fact":
            coverage[("fact", hit.item_id)] = set(hit.episode_ids) & wanted
    return coverage


def contested_beliefs(*, bank: Bank, limit: int = 50) -> list[Belief]:
    """Beliefs a contradiction left contested: what a reviewer should look at next to the queue."""
    return list(
        Belief.objects.filter(bank=bank, status=Belief.Status.CONTESTED)
        .only("id", "statement", "confidence", "proof_count", "contradiction_count", "updated_at")
        .order_by("-updated_at", "-id")[:limit]
    )


def contested_beliefs_panel(*, bank: Bank) -> dict:
    """The review queue's side panel (registered with ``reviews`` in ``BeliefsConfig.ready``)."""
    return {"contested": contested_beliefs(bank=bank, limit=10)}
