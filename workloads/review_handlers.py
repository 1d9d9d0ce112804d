"""What review decisions do for the workloads: suppressions and distilled lessons (registered at start-up)."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count

from banks.models import Bank
from beliefs.models import Episode
from reviews.handlers import ReviewHandler, register_review_handler
from reviews.models import ReviewItem
from workloads.anomaly import suppression_confirm, suppression_overturn
from workloads.distill import play_from_lesson
from workloads.models import Intervention


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


def register() -> None:
    """Accepting a suppression with a comment is a fresh proof, overturning it contests the belief; an accepted
    lesson becomes a ``Play``, and the queue shows each lesson's evidence and its play's outcomes."""
    register_review_handler(
        ReviewItem.Kind.SUPPRESSION, ReviewHandler(on_accept=suppression_confirm, on_overturn=suppression_overturn)
    )
    register_review_handler(
        ReviewItem.Kind.DISTILLATION, ReviewHandler(on_accept=play_from_lesson, support=lesson_support)
    )
