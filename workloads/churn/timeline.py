"""The attribution rule and an intervention's state at a time, as pure functions (no database).

An intervention's **window** opens when the play is offered (``started_at``) and closes
``outcome_grace_days`` after its horizon: ``[started_at, horizon_closes_at + grace]``, both ends
included. An outcome that does not name its intervention is attributed to the **latest**
intervention on the account (by start time, then id) whose window contains the outcome's
``occurred_at`` — to exactly one, never to two; outside every window it is attributed to none.

An attributed outcome **counts from** the later of the horizon close and the time it was
recorded (``recorded_at``): an early churn waits for the horizon, a late report counts from
the day it arrived, and nothing counts before it was reported (no peeking). An intervention
with no outcome reported by the end of its window is ``unknown`` from then on — until a
late outcome is attributed to it, which replaces that ``unknown`` from its own report time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

IN_FLIGHT = "in_flight"  # the horizon has not closed
AWAITING = "awaiting_outcome"  # the horizon closed; the grace period is running and nothing was reported
RETAINED, CHURNED, UNKNOWN = "retained", "churned", "unknown"
KNOWN = (RETAINED, CHURNED, UNKNOWN)


@dataclass(frozen=True)
class Window:
    intervention_id: int
    started_at: datetime
    horizon_closes_at: datetime


@dataclass(frozen=True)
class ReportedOutcome:
    outcome_id: int
    result: str
    recorded_at: datetime
    counts_from: datetime


@dataclass(frozen=True)
class State:
    """What is known about one intervention at ``now``."""

    state: str  # IN_FLIGHT, AWAITING or one of KNOWN
    known_at: datetime | None  # when the result started to count (None while in flight or awaiting)
    outcome_id: int | None  # the outcome it rests on (None for a timed-out ``unknown``)
    window_closes_at: datetime

    @property
    def known(self) -> bool:
        return self.state in KNOWN


def window_closes_at(horizon_closes_at: datetime, grace_days: float) -> datetime:
    return horizon_closes_at + timedelta(days=grace_days)


def attribute(*, occurred_at: datetime, windows: Iterable[Window], grace_days: float) -> int | None:
    """The id of the one intervention an unnamed outcome belongs to, or None (the rule above)."""
    containing = [
        w for w in windows if w.started_at <= occurred_at <= window_closes_at(w.horizon_closes_at, grace_days)
    ]
    if not containing:
        return None
    return max(containing, key=lambda w: (w.started_at, w.intervention_id)).intervention_id


def counts_from(*, horizon_closes_at: datetime, recorded_at: datetime) -> datetime:
    """When an attributed outcome starts to count."""
    return max(horizon_closes_at, recorded_at)


def state_at(
    *, horizon_closes_at: datetime, outcome: ReportedOutcome | None, now: datetime, grace_days: float
) -> State:
    """The intervention's state at ``now``, from its horizon and the outcome attributed to it (if any)."""
    closes = window_closes_at(horizon_closes_at, grace_days)
    if outcome is not None and outcome.counts_from <= now:
        return State(outcome.result, outcome.counts_from, outcome.outcome_id, closes)
    reported_by_now = outcome is not None and outcome.recorded_at <= now
    if now >= closes and not reported_by_now:
        return State(UNKNOWN, closes, None, closes)
    if now < horizon_closes_at:
        return State(IN_FLIGHT, None, None, closes)
    return State(AWAITING, None, None, closes)
