"""Read queries behind the review queue: items by kind and status, with what a reviewer needs to decide."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from banks.models import Bank
from reviews.models import ReviewItem

DECIDED = (ReviewItem.Status.ACCEPTED, ReviewItem.Status.REJECTED, ReviewItem.Status.OVERTURNED)


def review_item_list(*, bank: Bank) -> QuerySet[ReviewItem]:
    """Every item of ``bank``, newest first (narrow them with ``ReviewItemFilterSet``)."""
    return ReviewItem.objects.filter(bank=bank).order_by("-created_at", "-id")


def review_items(*, bank: Bank, kind: str | None = None, decided: bool = False) -> QuerySet[ReviewItem]:
    """Pending items of ``bank`` oldest first (a queue), or decided ones newest decision first."""
    items = (
        ReviewItem.objects.filter(bank=bank)
        .select_related("belief", "triage")
        .defer("belief__embedding", "belief__search_vector")
    )
    if kind:
        items = items.filter(kind=kind)
    if decided:
        return items.filter(status__in=DECIDED).order_by("-decided_at", "-id")
    return items.filter(status=ReviewItem.Status.PENDING).order_by("created_at", "id")


def review_item_get(*, bank: Bank, item_id: int) -> ReviewItem | None:
    """One item of ``bank`` with the belief and triage decision the queue shows next to it."""
    items = ReviewItem.objects.filter(bank=bank, pk=item_id).select_related("belief", "triage")
    return items.defer("belief__embedding", "belief__search_vector").first()


def newest_pending(*, bank: Bank, limit: int) -> list[ReviewItem]:
    """The ``limit`` items that arrived last and still wait for a person (the overview's "needs your attention")."""
    items = ReviewItem.objects.filter(bank=bank, status=ReviewItem.Status.PENDING)
    return list(items.only("id", "kind", "title", "created_at").order_by("-created_at", "-id")[:limit])


def pending_count(*, bank: Bank) -> int:
    """Items waiting for a person (the sidebar's badge)."""
    return ReviewItem.objects.filter(bank=bank, status=ReviewItem.Status.PENDING).count()


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
