"""The confidence rule: how evidence, contradiction, trust and time make a number.

For one belief, with every piece of evidence weighted by the trust of its source
(``SOURCE_TRUST``) times a hedging discount (``BankPolicy.hedged_weight``):

    S = sum of supporting weights      C = sum of contradicting weights
    base = S / (S + C + k)             k = BankPolicy.prior_strength (skepticism)
    age = now - last_confirmed_at      H = decay horizon, T = half-life
    decay = 1                          if age <= H
          = 0.5 ** ((age - H) / T)     otherwise
    confidence = base * decay

Status, first rule that applies: no support -> ``retracted``; a newer value replaced
this one in a one-value slot, or C >= S -> ``invalidated``; any contradiction that is
the latest word or at least a third of the support -> ``contested``; age > H ->
``stale``; else ``active``. Pure functions, no database.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

SOURCE_TRUST = {"user": 1.0, "tool": 1.0, "imported": 0.7, "agent": 0.5}
SUPPORTS = "supports"
CONTRADICTS = "contradicts"


@dataclass(frozen=True)
class EvidencePoint:
    stance: str
    weight: float
    observed_at: datetime


@dataclass(frozen=True)
class Assessment:
    status: str
    confidence: float
    base_confidence: float
    support_weight: float
    contradiction_weight: float
    proof_count: int
    contradiction_count: int
    last_confirmed_at: datetime | None
    valid_to: datetime | None


def evidence_weight(*, provenance: str, hedged: bool, hedged_weight: float) -> float:
    """Trust of the source, discounted when the statement was hedged."""
    trust = SOURCE_TRUST.get(provenance, 0.5)
    return round(trust * (hedged_weight if hedged else 1.0), 4)


def decay_factor(*, last_confirmed_at: datetime, now: datetime, horizon_days: float, half_life_days: float) -> float:
    """1 inside the horizon, then halving every half-life."""
    age = now - last_confirmed_at
    horizon = timedelta(days=horizon_days)
    if age <= horizon:
        return 1.0
    return 0.5 ** ((age - horizon) / timedelta(days=half_life_days))


def assess(
    points: list[EvidencePoint],
    *,
    now: datetime,
    prior_strength: float,
    horizon_days: float,
    half_life_days: float,
    superseded_at: datetime | None = None,
) -> Assessment:
    """Apply the rule above to one belief's evidence at time ``now``."""
    support = [p for p in points if p.stance == SUPPORTS and p.weight > 0]
    against = [p for p in points if p.stance == CONTRADICTS and p.weight > 0]
    s = sum(p.weight for p in support)
    c = sum(p.weight for p in against)
    last_confirmed = max((p.observed_at for p in support), default=None)
    last_against = max((p.observed_at for p in against), default=None)
    if not support:
        return Assessment("retracted", 0.0, 0.0, 0.0, round(c, 4), 0, len(against), None, last_against)
    base = s / (s + c + prior_strength)
    decay = decay_factor(
        last_confirmed_at=last_confirmed, now=now, horizon_days=horizon_days, half_life_days=half_life_days
    )
    valid_to = None
    if superseded_at is not None and superseded_at > last_confirmed:
        status, valid_to = "invalidated", superseded_at
    elif c >= s:
        status, valid_to = "invalidated", last_against
    elif against and (last_against >= last_confirmed or c >= s / 3):
        status = "contested"
    elif decay < 1.0:
        status = "stale"
    else:
        status = "active"
    return Assessment(
        status=status,
        confidence=round(base * decay, 4),
        base_confidence=round(base, 4),
        support_weight=round(s, 4),
        contradiction_weight=round(c, 4),
        proof_count=len(support),
        contradiction_count=len(against),
        last_confirmed_at=last_confirmed,
        valid_to=valid_to,
    )


def assess_evidence(rows, *, policy, now: datetime, superseded_at: datetime | None = None) -> Assessment:
    """``assess`` over evidence rows (anything with stance, weight, observed_at) under a bank's policy."""
    return assess(
        [EvidencePoint(row.stance, row.weight, row.observed_at) for row in rows],
        now=now,
        prior_strength=policy.prior_strength,
        horizon_days=policy.decay_horizon_days,
        half_life_days=policy.decay_half_life_days,
        superseded_at=superseded_at,
    )
