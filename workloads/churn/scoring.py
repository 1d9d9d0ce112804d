"""Scoring: write down what each intervention produced once it is known, and feed the segment belief.

``interventions_score(now)`` stores on each intervention the state ``timeline.state_at`` gives
at ``now`` once it is final — retained, churned or unknown — and retains a ``play_outcome``
episode, which consolidation folds into "play P in segment S retains accounts" (retained
supports it, churned contradicts it; unknown is no evidence). A timed-out ``unknown`` is
replaced when a late outcome arrives for the intervention. Safe to run again: an
intervention is scored from a given outcome once.

``recommend`` does not read these stored fields: it recomputes every state at its own
``now`` from the outcomes, so a replay that asks about the past never sees later results.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from banks.models import Bank
from banks.policy import bank_policy
from workloads.events import record_event
from workloads.models import Intervention, OutcomeEvent


def interventions_score(*, bank: Bank, now: datetime | None = None, fold_now: bool = False) -> int:
    """Score every intervention whose outcome became known by ``now``; returns how many were scored."""
    now = now or timezone.now()
    grace = timedelta(days=bank_policy(bank).outcome_grace_days)
    scored = 0
    reported = (
        OutcomeEvent.objects.filter(bank=bank, counts_from__lte=now, intervention__outcome_event__isnull=True)
        .select_related("intervention")
        .order_by("counts_from", "id")
    )
    for outcome in reported:
        scored += _score(bank, outcome.intervention, outcome.result, outcome.counts_from, outcome, fold_now)
    silent = (
        Intervention.objects.filter(bank=bank, outcome=Intervention.Outcome.PENDING, horizon_closes_at__lte=now - grace)
        .filter(~Exists(OutcomeEvent.objects.filter(intervention=OuterRef("pk"), recorded_at__lte=now)))
        .order_by("horizon_closes_at", "id")
    )
    for intervention in silent:
        scored += _score(bank, intervention, "unknown", intervention.horizon_closes_at + grace, None, fold_now)
    return scored


def _score(
    bank: Bank,
    intervention: Intervention,
    result: str,
    known_at: datetime,
    outcome: OutcomeEvent | None,
    fold_now: bool,
) -> int:
    with transaction.atomic():
        rows = Intervention.objects.filter(pk=intervention.pk, outcome_event__isnull=True)
        if outcome is None:
            rows = rows.filter(outcome=Intervention.Outcome.PENDING)
        if not rows.update(outcome=result, outcome_known_at=known_at, outcome_event=outcome):
            return 0  # another scorer got here first
        days = intervention.horizon_days
        if outcome is None:
            how = f"nothing was reported within the grace period after its {days}-day horizon"
        else:
            late = (outcome.recorded_at - intervention.horizon_closes_at).days
            when = f"reported {late} days after it closed" if late > 0 else "reported in time"
            how = f"{days}-day horizon, {when}"
        record_event(
            bank=bank,
            content=(
                f"Outcome: {intervention.account} ({intervention.segment}) {result} "
                f"after the {intervention.play} play ({how})"
            ),
            metadata={
                "event": "play_outcome",
                "account": intervention.account,
                "segment": intervention.segment,
                "play": intervention.play,
                "result": result,
                "intervention_id": intervention.pk,
            },
            occurred_at=known_at,
            source="crm",
            subject=f"account:{intervention.account}",
            fold_now=fold_now,
            # A timed-out unknown and the late result that replaces it are two episodes.
            idempotency_key=f"play-outcome-{intervention.pk}" + ("-timeout" if outcome is None else ""),
        )
    return 1
