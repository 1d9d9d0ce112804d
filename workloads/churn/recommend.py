"""Recommend: plays for an at-risk account, ranked on outcomes known at ``now``, with the excluded ones and why.

Every count is "k of n retained, outcomes known at ``now``": ``n`` counts the offers in the
segment whose outcome (retained or churned) counts by ``now`` under the attribution rule
(``timeline``); offers still in flight or awaiting their outcome are ``pending``, closed
without a result ``unknown``. Each play gets the 95% Wilson interval of its retention and an
**estimate** that shrinks its own rate toward the segment's (all plays together) with the
weight of ``PRIOR_OFFERS`` offers: ``(k + 4 × segment rate) / (n + 4)``. Plays are ranked by
the estimate (ties: the higher lower bound, then the larger sample), so one lucky "1 of 1"
does not outrank "13 of 20", and an untried play (estimate = the segment's rate) is tried
before plays known to do worse than the segment — memory learns instead of repeating the
first play it happened to try.

A play is **excluded** — listed with the same counts and interval, and the reason — when it
failed (churned, known at ``now``) for this account or an account linked to it, or when it
was offered to this account and its outcome is not known yet (in flight, or awaiting a late
report during the grace period). Every play, proposed or not, carries a ``why``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from banks.models import Bank
from banks.policy import bank_policy
from beliefs.extractors import claim_key
from beliefs.models import Belief, Play
from workloads.churn.catalogue import catalogue_horizons
from workloads.churn.records import related_accounts
from workloads.churn.timeline import AWAITING, CHURNED, IN_FLIGHT, ReportedOutcome, State, state_at
from workloads.models import Intervention, OutcomeEvent

Z_95 = 1.96
PRIOR_OFFERS = 4  # how many offers' worth of weight the segment's rate has in a play's estimate


def wilson(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` out of ``n`` (``[0, 1]`` when ``n`` is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(max(0.0, centre - margin), 4), round(min(1.0, centre + margin), 4)


@dataclass
class PlayCounts:
    retained: int = 0
    churned: int = 0
    unknown: int = 0
    pending: int = 0

    @property
    def n(self) -> int:
        return self.retained + self.churned


def segment_counts(*, bank: Bank, segment: str, now: datetime) -> dict[str, PlayCounts]:
    """Per play offered in ``segment`` by ``now``: the known sample (retained, churned), unknown and pending."""
    grace = timedelta(days=bank_policy(bank).outcome_grace_days)
    counts: dict[str, PlayCounts] = defaultdict(PlayCounts)
    known = (
        OutcomeEvent.objects.filter(bank=bank, intervention__segment=segment, counts_from__lte=now)
        .values_list("intervention__play", "result")
        .annotate(total=Count("id"))
    )
    for play, result, total in known:
        setattr(counts[play], result, getattr(counts[play], result) + total)
    reported = OutcomeEvent.objects.filter(intervention=OuterRef("pk"), recorded_at__lte=now)
    timed_out = (
        Intervention.objects.filter(bank=bank, segment=segment, horizon_closes_at__lte=now - grace)
        .filter(~Exists(reported))
        .values_list("play")
        .annotate(total=Count("id"))
    )
    for play, total in timed_out:
        counts[play].unknown += total
    offered = (
        Intervention.objects.filter(bank=bank, segment=segment, occurred_at__lte=now)
        .values_list("play")
        .annotate(total=Count("id"))
    )
    for play, total in offered:
        entry = counts[play]
        entry.pending = total - entry.retained - entry.churned - entry.unknown
    return dict(counts)


def family_states(*, bank: Bank, accounts: set[str], now: datetime) -> list[tuple[Intervention, State]]:
    """Every intervention on ``accounts`` offered by ``now``, oldest first, with its state at ``now``."""
    grace = bank_policy(bank).outcome_grace_days
    offers = list(
        Intervention.objects.filter(bank=bank, account__in=accounts, occurred_at__lte=now).order_by("occurred_at", "id")
    )
    outcomes = {
        o.intervention_id: ReportedOutcome(o.pk, o.result, o.recorded_at, o.counts_from)
        for o in OutcomeEvent.objects.filter(bank=bank, intervention__in=[i.pk for i in offers])
    }
    return [
        (i, state_at(horizon_closes_at=i.horizon_closes_at, outcome=outcomes.get(i.pk), now=now, grace_days=grace))
        for i in offers
    ]


def recommend(
    *,
    bank: Bank,
    account: str,
    segment: str,
    now: datetime | None = None,
    plays: list[str] | None = None,
    limit: int = 3,
) -> dict:
    """Plays for ``account`` best first, and the excluded ones, each with counts known at ``now`` and a ``why``."""
    now = now or timezone.now()
    family = related_accounts(bank, account)
    history = family_states(bank=bank, accounts=family, now=now)
    blocks = _blocks(history, account)
    counts = segment_counts(bank=bank, segment=segment, now=now)
    horizons = catalogue_horizons(bank=bank)
    candidates = (
        set(plays or [])
        | set(horizons)
        | set(counts)
        | set(Intervention.objects.filter(bank=bank).values_list("play", flat=True).distinct())
    )
    beliefs = _beliefs(bank, segment, candidates)
    default_horizon = bank_policy(bank).churn_horizon_days
    stamp = now.isoformat(timespec="minutes")
    pooled_n = sum(c.n for c in counts.values())
    segment_rate = sum(c.retained for c in counts.values()) / pooled_n if pooled_n else 0.5
    entries = {}
    for play in candidates:
        c = counts.get(play, PlayCounts())
        low, high = wilson(c.retained, c.n)
        estimate = (c.retained + PRIOR_OFFERS * segment_rate) / (c.n + PRIOR_OFFERS)
        entries[play] = {
            "play": play,
            "retained": c.retained,
            "churned": c.churned,
            "n": c.n,
            "unknown": c.unknown,
            "pending": c.pending,
            "rate": round(c.retained / c.n, 4) if c.n else None,
            "interval": [low, high],
            "estimate": round(estimate, 4),
            "horizon_days": horizons.get(play, default_horizon),
            "belief_id": beliefs.get(play),
            "summary": f"{play} in {segment}: {c.retained} of {c.n} retained, outcomes known at {stamp}",
        }
    allowed = sorted(
        (e for p, e in entries.items() if p not in blocks),
        key=lambda e: (-e["estimate"], -e["interval"][0], -e["n"], e["play"]),
    )
    for rank, entry in enumerate(allowed, start=1):
        entry["rank"] = rank
        entry["why"] = _why_allowed(entry, rank, len(allowed), segment, segment_rate, stamp, history, account)
    excluded = []
    for play in sorted(blocks):
        entry = entries[play]
        kind, reason, blockers = blocks[play]
        entry.update(kind=kind, reason=reason, blocked_by=blockers)
        entry["why"] = f"Excluded: {reason}. In {segment}: {entry['retained']} of {entry['n']} retained, " + (
            f"outcomes known at {stamp}."
        )
        excluded.append(entry)
    guidance = [
        {"play_id": p.pk, "text": p.text, "play": p.play}
        for p in Play.objects.filter(bank=bank).filter(Q(segment="") | Q(segment=segment)).order_by("id")
    ]
    return {
        "account": account,
        "segment": segment,
        "now": now,
        "counts_known_at": now,
        "segment_rate": round(segment_rate, 4) if pooled_n else None,
        "segment_n": pooled_n,
        "linked_accounts": sorted(family - {account}),
        "recommendations": allowed[:limit],
        "excluded": excluded,
        "guidance": guidance,
    }


def _blocks(history: list[tuple[Intervention, State]], account: str) -> dict[str, tuple[str, str, list[dict]]]:
    """Play → (kind, reason, blocking interventions) for every play that may not be proposed."""
    blocks: dict[str, tuple[str, str, list[dict]]] = {}
    blockers: dict[str, list[dict]] = defaultdict(list)
    # Failures first (own account before linked ones), then this account's offers still open.
    ordered = sorted(history, key=lambda h: (h[1].state != CHURNED, h[0].account != account, h[0].occurred_at))
    for intervention, state in ordered:
        failed = state.state == CHURNED
        open_here = state.state in (IN_FLIGHT, AWAITING) and intervention.account == account
        if not (failed or open_here):
            continue
        blockers[intervention.play].append(
            {
                "intervention_id": intervention.pk,
                "account": intervention.account,
                "offered_at": intervention.occurred_at,
                "state": state.state,
                "known_at": state.known_at,
            }
        )
        if intervention.play in blocks:
            continue
        offered = f"{intervention.occurred_at:%Y-%m-%d}"
        if failed:
            who = "this account" if intervention.account == account else f"linked account {intervention.account}"
            reason = f"it failed for {who} (offered {offered}, churned, known {state.known_at:%Y-%m-%d})"
            blocks[intervention.play] = ("failed", reason, blockers[intervention.play])
        elif state.state == IN_FLIGHT:
            reason = (
                f"offered to this account on {offered}; its {intervention.horizon_days}-day horizon closes "
                f"{intervention.horizon_closes_at:%Y-%m-%d}"
            )
            blocks[intervention.play] = (IN_FLIGHT, reason, blockers[intervention.play])
        else:
            reason = (
                f"offered to this account on {offered}; its horizon closed {intervention.horizon_closes_at:%Y-%m-%d} "
                f"and a late outcome is awaited until {state.window_closes_at:%Y-%m-%d}"
            )
            blocks[intervention.play] = (AWAITING, reason, blockers[intervention.play])
    return blocks


def _why_allowed(
    entry: dict, rank: int, total: int, segment: str, segment_rate: float, stamp: str, history, account: str
) -> str:
    low, high = entry["interval"]
    prior = f"the segment's {segment_rate:.0%} with the weight of {PRIOR_OFFERS} offers"
    if entry["n"]:
        why = (
            f"Ranked {rank} of {total} by estimated retention {entry['estimate']:.0%}: {entry['retained']} of "
            f"{entry['n']} retained in {segment}, outcomes known at {stamp} (95% interval {low:.0%}–{high:.0%}), "
            f"shrunk toward {prior}."
        )
    else:
        why = (
            f"Ranked {rank} of {total} by estimated retention {entry['estimate']:.0%}: no outcome known in {segment} "
            f"at {stamp} yet, so its estimate is the segment's rate."
        )
    if entry["pending"]:
        why += f" {entry['pending']} more offers in the segment are waiting for their outcome."
    tried = [(i, s) for i, s in history if i.play == entry["play"]]
    if tried:
        i, s = tried[-1]
        who = "this account" if i.account == account else f"linked account {i.account}"
        why += f" Tried on {who} on {i.occurred_at:%Y-%m-%d}: {s.state.replace('_', ' ')}."
    else:
        why += " Not tried on this account or a linked account."
    return why


def _beliefs(bank: Bank, segment: str, plays: set[str]) -> dict[str, int]:
    """Play → id of the belief "play P in segment S retains accounts", where one formed."""
    keys = {claim_key(f"play {play} in segment {segment}"): play for play in plays}
    rows = Belief.objects.filter(bank=bank, predicate="retains", subject_key__in=list(keys)).values_list(
        "subject_key", "pk"
    )
    return {keys[key]: pk for key, pk in rows}
