"""Recording an outcome: attribute it to one intervention (named, or by the window rule) and never count it twice.

An outcome is attributed when it is recorded, against the interventions recorded by then
(``workloads.churn.timeline`` states the rule). The same ``event_id`` again is a
no-op. A second outcome for an intervention that already has one is a duplicate when the
result is the same (nothing is stored) and a ``409 intervention_already_scored`` when it
differs; a database constraint allows one outcome per intervention, so concurrent writers
cannot make it two either.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from banks.policy import bank_policy
from memoryhub.exceptions import (
    InterventionAlreadyScored,
    InterventionNotFound,
    OutcomeAccountMismatch,
    OutcomeBeforeIntervention,
)
from workloads.churn.timeline import Window, attribute, counts_from, window_closes_at
from workloads.models import Intervention, OutcomeEvent


@dataclass(frozen=True)
class OutcomeRecorded:
    outcome: OutcomeEvent
    created: bool  # False: the same event_id was recorded before, or a duplicate of the intervention's outcome
    duplicate: bool = False  # the intervention already had this result from another event
    note: str = ""  # why an outcome is attributed to no intervention


def outcome_record(*, bank: Bank, actor: str | None = None, **outcome) -> OutcomeRecorded:
    """Store an outcome (retained, churned or unknown) and attribute it to at most one intervention.

    Idempotent by ``event_id``; a new outcome recorded for ``actor`` is audited. ``outcome``:
    ``result``, ``occurred_at``, ``event_id`` and optionally ``account``, ``recorded_at`` and
    ``intervention_id`` (see ``_outcome_store``).
    """
    with transaction.atomic():
        recorded = _outcome_store(bank=bank, **outcome)
        if actor and recorded.created:
            audit_record(tenant=bank.tenant_id, bank=bank, action="churn.outcome",
                         target=f"outcome:{recorded.outcome.pk}", actor=actor)  # fmt: skip
    return recorded


def _outcome_store(
    *,
    bank: Bank,
    result: str,
    occurred_at: datetime,
    event_id: str,
    account: str | None = None,
    recorded_at: datetime | None = None,
    intervention_id: int | None = None,
) -> OutcomeRecorded:
    recorded_at = recorded_at or timezone.now()
    existing = OutcomeEvent.objects.filter(bank=bank, event_id=event_id).first()
    if existing is not None:
        return OutcomeRecorded(existing, created=False)
    if intervention_id is not None:
        intervention = _named(bank, intervention_id, account, occurred_at)
        account, attribution = intervention.account, OutcomeEvent.Attribution.NAMED
    else:
        intervention = _by_window(bank, account, occurred_at)
        attribution = OutcomeEvent.Attribution.WINDOW if intervention else OutcomeEvent.Attribution.NONE
    fields = {
        "tenant_id": bank.tenant_id,
        "bank": bank,
        "account": account,
        "result": result,
        "occurred_at": occurred_at,
        "recorded_at": recorded_at,
        "event_id": event_id,
        "attribution": attribution,
    }
    if intervention is None:
        return _store_unattributed(bank, fields, account, occurred_at)
    for _attempt in range(2):  # a concurrent writer may win the one-outcome slot between our check and insert
        try:
            with transaction.atomic():
                already = OutcomeEvent.objects.filter(intervention=intervention).first()
                if already is not None:
                    return _second_outcome(intervention, already, result, event_id)
                outcome = OutcomeEvent.objects.create(
                    **fields,
                    intervention=intervention,
                    counts_from=counts_from(horizon_closes_at=intervention.horizon_closes_at, recorded_at=recorded_at),
                )
            return OutcomeRecorded(outcome, created=True)
        except IntegrityError:
            replay = OutcomeEvent.objects.filter(bank=bank, event_id=event_id).first()
            if replay is not None:
                return OutcomeRecorded(replay, created=False)
    already = OutcomeEvent.objects.get(intervention=intervention)
    return _second_outcome(intervention, already, result, event_id)


def _named(bank: Bank, intervention_id: int, account: str | None, occurred_at: datetime) -> Intervention:
    intervention = Intervention.objects.filter(bank=bank, pk=intervention_id).first()
    if intervention is None:
        raise InterventionNotFound("No such intervention in this bank.", extra={"intervention_id": intervention_id})
    if account and account != intervention.account:
        raise OutcomeAccountMismatch(extra={"intervention_id": intervention_id, "account": account})
    if occurred_at < intervention.occurred_at:
        raise OutcomeBeforeIntervention(
            extra={"intervention_id": intervention_id, "started_at": intervention.occurred_at.isoformat()}
        )
    return intervention


def _by_window(bank: Bank, account: str, occurred_at: datetime) -> Intervention | None:
    offers = list(Intervention.objects.filter(bank=bank, account=account, occurred_at__lte=occurred_at))
    if not offers and not Intervention.objects.filter(bank=bank, account=account).exists():
        raise InterventionNotFound(extra={"account": account})
    grace = bank_policy(bank).outcome_grace_days
    chosen = attribute(
        occurred_at=occurred_at,
        windows=[Window(o.pk, o.occurred_at, o.horizon_closes_at) for o in offers],
        grace_days=grace,
    )
    return next((o for o in offers if o.pk == chosen), None)


def _store_unattributed(bank: Bank, fields: dict, account: str, occurred_at: datetime) -> OutcomeRecorded:
    grace = bank_policy(bank).outcome_grace_days
    latest = (
        Intervention.objects.filter(bank=bank, account=account, occurred_at__lte=occurred_at)
        .order_by("-occurred_at", "-id")
        .first()
    )
    if latest is None:
        note = f"it happened before any intervention on {account}"
    else:
        closes = window_closes_at(latest.horizon_closes_at, grace)
        note = (
            f"it happened after the window of the latest intervention on {account} "
            f"(intervention {latest.pk}, {latest.play}) closed on {closes:%Y-%m-%d}"
        )
    try:
        with transaction.atomic():
            outcome = OutcomeEvent.objects.create(**fields, intervention=None, counts_from=None)
    except IntegrityError:
        return OutcomeRecorded(OutcomeEvent.objects.get(bank=bank, event_id=fields["event_id"]), created=False)
    return OutcomeRecorded(outcome, created=True, note=f"attributed to no intervention: {note}")


def _second_outcome(intervention: Intervention, already: OutcomeEvent, result: str, event_id: str) -> OutcomeRecorded:
    if already.result == result:
        return OutcomeRecorded(already, created=False, duplicate=True)
    raise InterventionAlreadyScored(
        extra={
            "intervention_id": intervention.pk,
            "outcome_id": already.pk,
            "result": already.result,
            "event_id": event_id,
        }
    )
