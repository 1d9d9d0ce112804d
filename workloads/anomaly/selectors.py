"""Read queries over triage decisions for the API and the dashboard (given an authorised ``bank``)."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Count, QuerySet
from django.utils import timezone

from banks.models import Bank
from beliefs.selectors.overview import DailySeries, daily_counts, days_ending
from reviews.models import ReviewItem
from workloads.models import TriageDecision


def triage_decision_list(*, bank: Bank) -> QuerySet[TriageDecision]:
    """The bank's triage decisions, newest first (narrow them with ``TriageDecisionFilterSet``)."""
    return TriageDecision.objects.filter(bank=bank).order_by("-decided_at", "-id")


def suppression_log(*, bank: Bank, decision: str | None) -> QuerySet[TriageDecision]:
    """Triage decisions of one kind (``None``: every kind) with the belief each rested on, newest first."""
    rows = triage_decision_list(bank=bank).select_related("belief").defer("belief__embedding", "belief__search_vector")
    return rows.filter(decision=decision) if decision else rows


def suppression_reviews(*, bank: Bank, decisions: list[TriageDecision]) -> dict[int, ReviewItem]:
    """Triage decision id -> the review item a person decided (or not yet) about it."""
    items = ReviewItem.objects.filter(bank=bank, triage_id__in=[d.pk for d in decisions]).only(
        "id", "triage_id", "status", "comment", "decided_by", "decided_at"
    )
    return {item.triage_id: item for item in items}


def suppression_review_counts(*, bank: Bank) -> dict[str, int]:
    """Suppression review items per status."""
    rows = ReviewItem.objects.filter(bank=bank, kind=ReviewItem.Kind.SUPPRESSION).values_list("status")
    return dict(rows.order_by().annotate(n=Count("id")))


def triage_decision_get(*, bank: Bank, decision_id: int) -> TriageDecision | None:
    return TriageDecision.objects.filter(bank=bank, pk=decision_id).first()


def triage_daily(*, bank: Bank, days: int = 30, now: datetime | None = None) -> DailySeries:
    """Suppressed and investigated alerts per day of triage time (``decided_at``)."""
    now = now or timezone.now()
    window = days_ending(now, days)
    rows = TriageDecision.objects.filter(bank=bank, decided_at__date__gte=window[0], decided_at__lte=now)
    return daily_counts(rows, window=window, day_field="decided_at", group_field="decision",
                        names=("suppress", "investigate"))  # fmt: skip
