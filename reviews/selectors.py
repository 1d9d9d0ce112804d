"""Read queries behind the review queue: items by kind and status, with what a reviewer needs to decide."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, QuerySet

from banks.models import Bank
from beliefs.models import Belief, Episode
from reviews.models import ReviewItem
from workloads.models import Intervention

DECIDED = (ReviewItem.Status.ACCEPTED, ReviewItem.Status.REJECTED, ReviewItem.Status.OVERTURNED)


def review_items(*, bank: Bank, kind: str | None = None, decided: bool = False) -> QuerySet[ReviewItem]:
    """Pending items of ``bank`` oldest first (a queue), or decided ones newest decision first."""
    items = ReviewItem.objects.filter(bank=bank).select_related("belief", "triage").defer(
        "belief__embedding", "belief__search_vector"
    )
    if kind:
        items = items.filter(kind=kind)
    if decided:
        return items.filter(status__in=DECIDED).order_by("-decided_at", "-id")
    return items.filter(status=ReviewItem.Status.PENDING).order_by("created_at", "id")


def review_counts(*, bank: Bank) -> dict[str, int]:
    """Pending items per kind, plus ``all``."""
    counts = dict(
        ReviewItem.objects.filter(bank=bank, status=ReviewItem.Status.PENDING)
        .values_list("kind")
        .annotate(n=Count("id"))
        .order_by()
    )
    counts["all"] = sum(counts.values())
    return counts


def contested_beliefs(*, bank: Bank, limit: int = 50) -> list[Belief]:
    """Beliefs a contradiction left contested: what a reviewer should look at next to the queue."""
    return list(
        Belief.objects.filter(bank=bank, status=Belief.Status.CONTESTED)
        .only("id", "statement", "confidence", "proof_count", "contradiction_count", "updated_at")
        .order_by("-updated_at", "-id")[:limit]
    )


def lesson_support(*, bank: Bank, items: list[ReviewItem]) -> dict[int, dict]:
    """For each distillation item: the episodes it cites and the scored outcomes of its play in its segment.

    Two queries for the whole page, however many lessons it shows.
    """
    lessons = [item for item in items if item.kind == ReviewItem.Kind.DISTILLATION]
    episode_ids = {i for item in lessons for i in (item.payload.get("evidence_episode_ids") or [])}
    episodes = {
        e.pk: e for e in Episode.objects.filter(bank=bank, pk__in=episode_ids).only("id", "content", "occurred_at")
    }
    pairs = {(item.payload.get("play"), item.payload.get("segment")) for item in lessons if item.payload.get("play")}
    outcomes: dict[tuple, dict[str, int]] = defaultdict(dict)
    if pairs:
        rows = (
            Intervention.objects.filter(
                bank=bank, play__in={p for p, _ in pairs}, segment__in={s for _, s in pairs}
            )
            .values_list("play", "segment", "outcome")
            .annotate(n=Count("id"))
            .order_by()
        )
        for play, segment, outcome, n in rows:
            outcomes[(play, segment)][outcome] = n
    support = {}
    for item in lessons:
        key = (item.payload.get("play"), item.payload.get("segment"))
        stats = outcomes.get(key, {})
        support[item.pk] = {
            "episodes": [episodes[i] for i in (item.payload.get("evidence_episode_ids") or []) if i in episodes],
            "retained": stats.get("retained", 0),
            "churned": stats.get("churned", 0),
            "pending": stats.get("pending", 0),
        }
    return support
