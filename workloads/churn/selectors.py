"""Read queries over churn records for the API and the dashboard (given an authorised ``bank``)."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from banks.models import Bank
from banks.policy import bank_policy
from workloads.churn.timeline import ReportedOutcome, State, state_at
from workloads.models import Intervention, OutcomeEvent


def intervention_list(
    *, bank: Bank, account: str | None = None, segment: str | None = None, play: str | None = None
) -> QuerySet[Intervention]:
    """The bank's interventions, newest first, optionally for one account, segment or play."""
    rows = Intervention.objects.filter(bank=bank)
    if account:
        rows = rows.filter(account=account)
    if segment:
        rows = rows.filter(segment=segment)
    if play:
        rows = rows.filter(play=play)
    return rows.order_by("-occurred_at", "-id")


def intervention_get(*, bank: Bank, intervention_id: int) -> Intervention | None:
    return Intervention.objects.filter(bank=bank, pk=intervention_id).first()


def intervention_states(
    *, bank: Bank, interventions: list[Intervention], now: datetime | None = None
) -> dict[int, tuple[State, OutcomeEvent | None]]:
    """Intervention id → (its state at ``now``, the outcome attributed to it if reported by then), in one query."""
    now = now or timezone.now()
    grace = bank_policy(bank).outcome_grace_days
    outcomes = {o.intervention_id: o for o in OutcomeEvent.objects.filter(bank=bank, intervention__in=interventions)}
    states = {}
    for intervention in interventions:
        outcome = outcomes.get(intervention.pk)
        reported = (
            ReportedOutcome(outcome.pk, outcome.result, outcome.recorded_at, outcome.counts_from) if outcome else None
        )
        state = state_at(horizon_closes_at=intervention.horizon_closes_at, outcome=reported, now=now, grace_days=grace)
        states[intervention.pk] = (state, outcome if outcome and outcome.recorded_at <= now else None)
    return states


def outcome_list(
    *, bank: Bank, account: str | None = None, intervention_id: int | None = None, attribution: str | None = None
) -> QuerySet[OutcomeEvent]:
    """The bank's outcome events, most recently recorded first."""
    rows = OutcomeEvent.objects.filter(bank=bank)
    if account:
        rows = rows.filter(account=account)
    if intervention_id:
        rows = rows.filter(intervention_id=intervention_id)
    if attribution:
        rows = rows.filter(attribution=attribution)
    return rows.order_by("-recorded_at", "-id")
