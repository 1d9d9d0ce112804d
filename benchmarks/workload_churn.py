"""Churn simulator for ``make eval-workloads``: late and unknown outcomes, overlapping offers, linked accounts.

The world: accounts in three segments, in clusters of two or three that share contacts
(every pair linked), each at risk about every four months. A play has a true retention rate per segment
and a catalogue horizon of 60 or 90 days (one offer in ten overrides it with 45 or 120).
When an account is at risk again while an offer is in flight, one time in three a second
offer goes out (two in flight at most: overlapping windows). Each offer's outcome
happens around its horizon (a renewal on the horizon date, a churn from 30 days before to 15
days after it) and is **reported 0–30 days after the horizon closes**; half the reports name
their intervention, the rest rely on the window rule; 8% are reported as ``unknown`` and 4%
are never reported at all.

Three agents meet the same world (the same accounts, risk days and dice per decision):

- **memory** asks ``recommend`` at the decision's ``now`` and takes the top play (one of the
  plays tied at the top when there is no evidence yet; 20% of the time any allowed play, to
  keep learning); every outcome is reported to MemoryHub;
- **no memory** is the same agent on a MemoryHub that is never told outcomes (it still
  records its offers, so it knows what is in flight), so every play looks alike to it;
- **random** offers a play uniformly at random.

The simulator keeps its own books with the documented attribution rule (implemented here,
independently of the service) and checks every recommendation against them: a play is a
*known failure* at ``now`` when an outcome ``churned`` attributed to an offer of it on the
account or a linked account counts by ``now``; sample sizes must equal the books' count of
outcomes known at ``now``, for proposed and excluded plays alike.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

START = datetime(2025, 1, 1, tzinfo=UTC)
GRACE_DAYS = 30
PLAY_ORDER = ("discount-10", "discount-20", "exec-review", "training", "success-plan")
TRUTH = {  # true retention rate of each play, per segment
    "SMB": dict(zip(PLAY_ORDER, (0.30, 0.45, 0.25, 0.65, 0.50), strict=True)),
    "Mid-Market": dict(zip(PLAY_ORDER, (0.35, 0.40, 0.70, 0.45, 0.55), strict=True)),
    "Enterprise": dict(zip(PLAY_ORDER, (0.20, 0.30, 0.60, 0.50, 0.75), strict=True)),
}
HORIZONS = {"discount-10": 60, "discount-20": 60, "exec-review": 90, "training": 90, "success-plan": 90}
PLAYS = sorted(HORIZONS)
EXPLORE = 0.2
AGENTS = ("memory", "no-memory", "random")
RISK_PER_DAY = 1 / 120
OVERLAP = 1 / 3


@dataclass
class Offer:
    pk: int
    account: str
    segment: str
    play: str
    start: datetime
    close: datetime
    kept: bool
    outcome: tuple[str, datetime] | None = None  # (result, counts_from) under the documented rule


@dataclass
class Books:
    """What a correct implementation of the documented rule knows, kept by the simulator."""

    offers: dict[int, Offer] = field(default_factory=dict)
    by_account: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    known: dict[tuple[str, str, str], list[datetime]] = field(default_factory=lambda: defaultdict(list))
    reported_failures: dict[str, list[tuple[datetime, str]]] = field(default_factory=lambda: defaultdict(list))

    def attribute(self, account: str, occurred: datetime) -> Offer | None:
        grace = timedelta(days=GRACE_DAYS)
        inside = [
            self.offers[pk]
            for pk in self.by_account[account]
            if self.offers[pk].start <= occurred <= self.offers[pk].close + grace
        ]
        return max(inside, key=lambda o: (o.start, o.pk), default=None)

    def settle(self, offer: Offer, result: str, recorded: datetime) -> str:
        """Attribute one outcome to ``offer``: 'stored', 'duplicate' or 'conflict' (never a second count)."""
        if offer.outcome is not None:
            return "duplicate" if offer.outcome[0] == result else "conflict"
        counts_from = max(offer.close, recorded)
        offer.outcome = (result, counts_from)
        bisect.insort(self.known[(offer.segment, offer.play, result)], counts_from)
        return "stored"

    def count(self, segment: str, play: str, result: str, now: datetime) -> int:
        return bisect.bisect_right(self.known[(segment, play, result)], now)

    def known_failures(self, family: set[str], now: datetime) -> set[str]:
        failed = set()
        for account in family:
            for pk in self.by_account[account]:
                offer = self.offers[pk]
                if offer.outcome and offer.outcome[0] == "churned" and offer.outcome[1] <= now:
                    failed.add(offer.play)
        return failed

    def in_flight(self, account: str, now: datetime) -> int:
        return sum(1 for pk in self.by_account[account] if self.offers[pk].close > now)


def world(accounts: int, seed: int):
    """Accounts with segments, clusters of linked accounts, and the days each one is at risk."""
    rng = random.Random(seed)
    names = [f"acct-{n:04d}" for n in range(accounts)]
    segments = {name: list(TRUTH)[n % 3] for n, name in enumerate(names)}
    clusters, n = [], 0
    while n < accounts:
        size = min(rng.choice((2, 2, 3)), accounts - n)
        clusters.append(names[n : n + size])
        n += size
    family = {a: set(c) for c in clusters for a in c}
    return names, segments, clusters, family


def dice(seed: int, account: str, day: int) -> random.Random:
    """The same random numbers for the same decision in every agent's world."""
    return random.Random(f"{seed}:{account}:{day}")


def outcome_plan(rng: random.Random, offer: Offer) -> dict | None:
    """When and how this offer's outcome is reported (None: never reported)."""
    roll = rng.random()
    report_after_close = timedelta(days=rng.uniform(0, 30))
    named = rng.random() < 0.5
    if roll < 0.04:
        return None
    if roll < 0.12:
        result, occurred = "unknown", offer.close - timedelta(days=rng.uniform(0, 20))
    elif offer.kept:
        result, occurred = "retained", offer.close
    else:
        result = "churned"
        occurred = max(offer.start + timedelta(days=1), offer.close + timedelta(days=rng.uniform(-30, 15)))
    recorded = max(offer.close + report_after_close, occurred)
    return {"result": result, "occurred": occurred, "recorded": recorded, "named": named}


def run(agent: str, *, accounts: int = 240, days: int = 360, seed: int = 5) -> dict:
    from banks.models import Bank, Tenant
    from memoryhub.exceptions import InterventionAlreadyScored
    from memoryhub.tenancy import tenant_scope
    from workloads.churn import (
        account_link,
        intervention_record,
        interventions_score,
        outcome_record,
        play_upsert,
        recommend,
    )
    from workloads.models import Intervention

    names, segments, clusters, family = world(accounts, seed)
    uses_service = agent in ("memory", "no-memory")
    books, stats = Books(), defaultdict(int)
    events: list[tuple[datetime, int, dict]] = []  # a heap of (recorded, seq, event) still to be delivered
    seq = itertools.count()
    next_pk = -1  # offers of the random agent never reach the service
    tenant = Tenant.objects.create(slug=f"churn-{agent}", name=agent)
    bank = Bank.objects.create(tenant=tenant, slug="churn", name="churn", policy={"churn": {"outcome_grace_days": 30}})
    with tenant_scope(tenant.pk):
        if uses_service:
            for play, horizon in HORIZONS.items():
                play_upsert(bank=bank, name=play, horizon_days=horizon)
            for cluster in clusters:
                for i, a in enumerate(cluster):
                    for b in cluster[i + 1 :]:
                        account_link(bank=bank, account=a, related_account=b, relation="shared_contact")
        for day in range(days):
            now = START + timedelta(days=day, hours=12)
            while events and events[0][0] <= now:
                _, _, event = heapq.heappop(events)
                _deliver(event, books, stats, bank, agent, outcome_record, InterventionAlreadyScored)
            if agent == "memory":
                interventions_score(bank=bank, now=now)
            for account in names:
                rng = dice(seed, account, day)
                busy = books.in_flight(account, now)
                # At risk about every four months; with an offer in flight, a second team offers too one time in three.
                if rng.random() > RISK_PER_DAY or busy >= 2 or (busy and rng.random() > OVERLAP):
                    continue
                segment = segments[account]
                failures = books.known_failures(family[account], now)
                reported = {p for t, p in _reported_failures(books, family[account]) if t <= now}
                explore, pick = rng.random(), rng.random()
                if uses_service:
                    result = recommend(bank=bank, account=account, segment=segment, now=now, limit=len(PLAYS))
                    allowed = [r["play"] for r in result["recommendations"]]
                    if not allowed:
                        stats["no_play_allowed"] += 1
                        continue
                    if agent == "memory":  # the no-memory service is never told outcomes: its counts are 0 by design
                        _check_counts(result, books, segment, now, stats)
                    stats["top1_repeats"] += allowed[0] in failures
                    stats["proposed"] += len(allowed)
                    stats["proposed_repeats"] += len(set(allowed) & failures)
                    # The top play; among plays tied at the top (no evidence yet) any one; now and then another.
                    top = result["recommendations"][0]["estimate"]
                    tied = [r["play"] for r in result["recommendations"] if r["estimate"] == top]
                    pool = allowed if explore < EXPLORE else tied
                    play = pool[min(int(pick * len(pool)), len(pool) - 1)]
                else:
                    play = PLAYS[min(int(pick * len(PLAYS)), len(PLAYS) - 1)]
                    stats["top1_repeats"] += play in failures
                horizon = HORIZONS[play]
                if rng.random() < 0.1:
                    horizon = rng.choice((45, 120))
                kept = rng.random() < TRUTH[segment][play]
                if uses_service:
                    intervention, _ = intervention_record(
                        bank=bank, account=account, segment=segment, play=play, occurred_at=now, horizon_days=horizon
                    )
                    pk = intervention.pk
                else:
                    pk, next_pk = next_pk, next_pk - 1
                offer = Offer(pk, account, segment, play, now, now + timedelta(days=horizon), kept)
                books.offers[pk] = offer
                books.by_account[account].append(pk)
                stats["decisions"] += 1
                stats["repeats"] += play in failures
                stats["world_repeats"] += play in reported
                stats["retained_truth"] += kept
                if day >= days // 2:
                    stats["late_decisions"] += 1
                    stats["late_retained"] += kept
                stats["overlapping"] += books.in_flight(account, now) > 1
                plan = outcome_plan(rng, offer)
                if plan is None:
                    stats["never_reported"] += 1
                    continue
                heapq.heappush(events, (plan["recorded"], next(seq), {**plan, "offer": offer}))
        scored = Intervention.objects.filter(bank=bank, outcome__in=["retained", "churned"])
        service_scored = scored.count()
        service_retained = scored.filter(outcome="retained").count()
    decisions = stats["decisions"]
    return {
        "agent": agent,
        "accounts": accounts,
        "days": days,
        "decisions": decisions,
        "overlapping_offers": stats["overlapping"],
        "top1_repeat_rate": _rate(stats["top1_repeats"], decisions),
        "top1_repeats": stats["top1_repeats"],
        "chosen_repeat_rate": _rate(stats["repeats"], decisions),
        "proposed_plays": stats["proposed"],
        "proposed_repeat_rate": _rate(stats["proposed_repeats"], stats["proposed"]) if uses_service else None,
        "repeat_of_any_reported_failure_rate": _rate(stats["world_repeats"], decisions),
        "retained": stats["retained_truth"],
        "retention_rate": _rate(stats["retained_truth"], decisions),
        "second_half_decisions": stats["late_decisions"],
        "second_half_retention_rate": _rate(stats["late_retained"], stats["late_decisions"]),
        "sample_size_checks": stats["checks"],
        "sample_size_mismatches": stats["mismatches"],
        "excluded_checks": stats["excluded_checks"],
        "excluded_without_counts": stats["excluded_without_counts"],
        "outcomes": {
            "reported": stats["reported"],
            "named": stats["named"],
            "by_window_rule": stats["by_window"],
            "outside_every_window": stats["unattributed"],
            "reported_after_horizon": stats["late"],
            "unknown_reported": stats["unknown_reported"],
            "never_reported": stats["never_reported"],
            "duplicates": stats["duplicate"],
            "conflicts_409": stats["conflict"],
            "attributed_to_another_offer": stats["misattributed"],
            "service_disagreements": stats["disagreements"],
        },
        "service_scored": service_scored if agent == "memory" else None,
        "service_retained": service_retained if agent == "memory" else None,
        "no_play_allowed": stats["no_play_allowed"],
    }


def _reported_failures(books: Books, family: set[str]) -> list[tuple[datetime, str]]:
    return [item for account in family for item in books.reported_failures[account]]


def _deliver(event, books: Books, stats, bank, agent, outcome_record, already_scored) -> None:
    offer: Offer = event["offer"]
    result, occurred, recorded = event["result"], event["occurred"], event["recorded"]
    stats["reported"] += 1
    stats["late"] += recorded > offer.close
    stats["unknown_reported"] += result == "unknown"
    if result == "churned":
        books.reported_failures[offer.account].append((recorded, offer.play))
    target = offer if event["named"] else books.attribute(offer.account, occurred)
    stats["named" if event["named"] else ("by_window" if target else "unattributed")] += 1
    stats["misattributed"] += target is not None and target.pk != offer.pk
    expected = books.settle(target, result, recorded) if target else "unattributed"
    if expected in ("duplicate", "conflict"):
        stats[expected] += 1
    if agent != "memory":
        return
    try:
        recorded_by_service = outcome_record(
            bank=bank,
            account=offer.account,
            result=result,
            occurred_at=occurred,
            recorded_at=recorded,
            event_id=f"outcome-{offer.pk}",
            intervention_id=offer.pk if event["named"] else None,
        )
        if recorded_by_service.duplicate:
            got = "duplicate"
        elif recorded_by_service.outcome.intervention_id is None:
            got = "unattributed"
        else:
            got = "stored" if recorded_by_service.outcome.intervention_id == target.pk else "elsewhere"
    except already_scored:
        got = "conflict"
    stats["disagreements"] += got != expected


def _check_counts(result: dict, books: Books, segment: str, now: datetime, stats) -> None:
    for entry in result["recommendations"] + result["excluded"]:
        retained = books.count(segment, entry["play"], "retained", now)
        churned = books.count(segment, entry["play"], "churned", now)
        stats["checks"] += 1
        stats["mismatches"] += (entry.get("retained"), entry.get("n")) != (retained, retained + churned)
    for entry in result["excluded"]:
        stats["excluded_checks"] += 1
        stats["excluded_without_counts"] += not {"retained", "n", "interval", "why"} <= set(entry)


def _rate(k: int, n: int) -> float | None:
    return round(k / n, 4) if n else None


def difference(a: dict, b: dict) -> dict:
    """Retention of agent ``a`` minus agent ``b``, with a 95% (Wald) interval, in points."""
    p1, n1, p2, n2 = a["retention_rate"], a["decisions"], b["retention_rate"], b["decisions"]
    se = math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    d = p1 - p2
    return {"points": round(100 * d, 1), "interval": [round(100 * (d - 1.96 * se), 1), round(100 * (d + 1.96 * se), 1)]}
