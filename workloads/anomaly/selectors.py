"""Read queries over triage decisions for the API and the dashboard (given an authorised ``bank``)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime

from django.db.models import Count, QuerySet
from django.db.models.functions import TruncDate
from django.utils import timezone

from banks.models import Bank
from beliefs.selectors.overview import DailySeries, days_ending
from workloads.models import TriageDecision


def triage_decision_list(
    *,
    bank: Bank,
    decision: str | None = None,
    signature: str | None = None,
    target: str | None = None,
    since: datetime | None = None,
) -> QuerySet[TriageDecision]:
    """The bank's triage decisions, newest first — with ``decision="suppress"``, the suppression log."""
    rows = TriageDecision.objects.filter(bank=bank)
    if decision:
        rows = rows.filter(decision=decision)
    if signature:
        rows = rows.filter(signature=signature)
    if target:
        rows = rows.filter(target=target)
    if since:
        rows = rows.filter(decided_at__gte=since)
    return rows.order_by("-decided_at", "-id")


def triage_decision_get(*, bank: Bank, decision_id: int) -> TriageDecision | None:
    return TriageDecision.objects.filter(bank=bank, pk=decision_id).first()


def triage_daily(*, bank: Bank, days: int = 30, now: datetime | None = None) -> DailySeries:
    """Suppressed and investigated alerts per day of triage time (``decided_at``)."""
    now = now or timezone.now()
    window = days_ending(now, days)
    counts: dict[str, dict[date, int]] = defaultdict(dict)
    rows = (
        TriageDecision.objects.filter(bank=bank, decided_at__date__gte=window[0], decided_at__lte=now)
        .annotate(day=TruncDate("decided_at"))
        .values_list("day", "decision")
        .annotate(n=Count("id"))
        .order_by()
    )
    for day, decision, count in rows:
        counts[decision][day] = count
    return DailySeries(
        days=window,
        series={name: [counts[name].get(day, 0) for day in window] for name in ("suppress", "investigate")},
    )
