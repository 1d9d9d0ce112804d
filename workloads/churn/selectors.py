"""Read queries over churn records for the API and the dashboard (given an authorised ``bank``)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import QuerySet
from django.utils import timezone

from banks.models import Bank
from banks.policy import bank_policy
from beliefs.models import Play
from workloads.churn.recommend import segment_counts, wilson
from workloads.churn.timeline import AWAITING, IN_FLIGHT, ReportedOutcome, State, state_at
from workloads.models import Intervention, OutcomeEvent


def intervention_list(*, bank: Bank) -> QuerySet[Intervention]:
    """The bank's interventions, newest first (narrow them with ``InterventionFilterSet``)."""
    return Intervention.objects.filter(bank=bank).order_by("-occurred_at", "-id")


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


def outcome_list(*, bank: Bank) -> QuerySet[OutcomeEvent]:
    """The bank's outcome events, most recently recorded first (narrow them with ``OutcomeFilterSet``)."""
    return OutcomeEvent.objects.filter(bank=bank).order_by("-recorded_at", "-id")


HORIZON_BUCKETS = [("within 7 days", 7), ("within 30 days", 30), ("later", None)]


def churn_plays_overview(*, bank: Bank, now: datetime) -> dict:
    """The churn plays page: per segment each play's k of n retained with its Wilson interval (best lower bound
    first), interventions still open by when their horizon closes, and the accepted plays' guidance."""
    segments = sorted(Intervention.objects.filter(bank=bank).values_list("segment", flat=True).distinct().order_by())
    table = []
    for segment in segments:
        plays = []
        for play, counts in segment_counts(bank=bank, segment=segment, now=now).items():
            low, high = wilson(counts.retained, counts.n)
            rate = counts.retained / counts.n if counts.n else None
            plays.append({"play": play, "counts": counts, "rate": rate, "low": low, "high": high})
        plays.sort(key=lambda p: (-p["low"], -p["counts"].n, p["play"]))
        table.append((segment, plays))
    candidates = list(
        intervention_list(bank=bank)
        .filter(horizon_closes_at__gt=now - timedelta(days=365))
        .only("id", "account", "segment", "play", "occurred_at", "horizon_closes_at")[:500]
    )
    states = intervention_states(bank=bank, interventions=candidates, now=now)
    open_rows = sorted(
        (row for row in candidates if states[row.pk][0].state in (IN_FLIGHT, AWAITING)),
        key=lambda row: row.horizon_closes_at,
    )
    buckets = {name: [] for name, _ in HORIZON_BUCKETS}
    buckets["horizon closed, awaiting the outcome"] = []
    for row in open_rows:
        if states[row.pk][0].state == AWAITING:
            buckets["horizon closed, awaiting the outcome"].append(row)
            continue
        days = (row.horizon_closes_at - now).total_seconds() / 86400
        name = next(name for name, limit in HORIZON_BUCKETS if limit is None or days < limit)
        buckets[name].append(row)
    guidance = list(Play.objects.filter(bank=bank).only("id", "text", "play", "segment").order_by("segment"))
    return {"table": table, "buckets": list(buckets.items()), "open_count": len(open_rows), "guidance": guidance}
