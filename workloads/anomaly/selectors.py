"""Read queries over triage decisions for the API and the dashboard (given an authorised ``bank``)."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet

from banks.models import Bank
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
