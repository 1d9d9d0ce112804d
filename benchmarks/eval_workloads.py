"""Workload evaluation (``make eval-workloads``): anomaly triage, churn plays, tokens per task.

1. Anomaly simulator with ground truth, replayed day by day with an explicit ``now``:
   benign signatures that recur daily (analysts dismiss them when they investigate),
   genuine incidents that look the same on other hosts, a benign pattern that turns
   real after day 100 (its values rise), and one that goes quiet and comes back real
   after its belief went past the decay horizon. Every suppression is reviewed (the
   default policy): a reviewer confirms it or overturns it. Reported per configuration:
   suppression precision, share of benign alerts suppressed, incidents wrongly
   suppressed, investigations saved.
2. Churn simulator with delayed outcomes: accounts in three segments, plays with true
   per-segment retention rates, outcomes 45 days after an offer, scored when the 75-day
   horizon closes. Memory on (recommend, with 20% exploration among allowed plays) vs
   random play choice; repeat-play rate, retention, and whether recommend's sample
   sizes equal the simulator's counts of outcomes known at that time.
3. Tokens per resolved task: a stateless agent re-reading its whole history every turn
   vs one reading a stored mental model plus a bounded recall, over 10, 30 and 100
   turns, with cl100k token counts of the actual texts.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from datetime import UTC, datetime, timedelta

from common import Timer, machine, setup_django, write_result

START = datetime(2026, 1, 1, tzinfo=UTC)


def anomaly_run(label: str, *, days: int, policy: dict, seed: int = 11) -> dict:
    from banks.models import Bank, Tenant
    from beliefs.workloads.anomaly import anomaly_event_record, triage
    from memoryhub.tenancy import tenant_scope
    from reviews.models import ReviewItem
    from reviews.services.decisions import review_item_decide

    rng = random.Random(seed)  # the alert stream: identical for every configuration
    analyst = random.Random(seed + 1)  # whether an investigated alert gets recorded feedback
    tenant = Tenant.objects.create(slug=f"anomaly-{label}", name=label)
    bank = Bank.objects.create(tenant=tenant, slug="alerts", name="alerts", policy=policy)
    benign = [("DiskIOHigh", f"db-{n}") for n in range(1, 4)] + [("CpuSpike", f"web-{n}") for n in range(1, 4)]
    genuine = [("DiskIOHigh", "db-9"), ("CpuSpike", "web-9")]
    drift, quiet = ("QueueBacklog", "mq-1"), ("MemPressure", "cache-1")
    counts = defaultdict(int)
    with tenant_scope(tenant.pk):
        for day in range(days):
            firing = []
            for pair in benign:
                if rng.random() < 0.6:
                    firing.append((pair, False, rng.gauss(80, 4)))
            for pair in genuine:
                if rng.random() < 0.08:
                    firing.append((pair, True, rng.gauss(80, 4)))
            if rng.random() < 0.6:
                real = day >= 100
                firing.append((drift, real, rng.gauss(150, 8) if real else rng.gauss(80, 4)))
            if day < 20 and rng.random() < 0.7:
                firing.append((quiet, False, rng.gauss(80, 4)))
            if day >= 125 and rng.random() < 0.3:
                firing.append((quiet, True, rng.gauss(81, 4)))  # looks like the old benign pattern
            hours = {pair: rng.uniform(0, 20) for pair, _, _ in firing}
            for (signature, host), is_genuine, value in firing:
                at = START + timedelta(days=day, hours=hours[(signature, host)])
                value = round(value, 1)
                event = {"type": "alert", "signature": signature, "host": host, "value": value}
                anomaly_event_record(bank=bank, event=event, occurred_at=at, fold_now=True)
                result = triage(bank=bank, signature=signature, target=host, value=value, now=at + timedelta(minutes=1))
                counts["alerts"] += 1
                counts["genuine" if is_genuine else "benign"] += 1
                if result.decision == "suppress":
                    counts["suppressed"] += 1
                    counts["suppressed_genuine" if is_genuine else "suppressed_benign"] += 1
                    if result.review_item_id:
                        decision = "overturn" if is_genuine else "accept"
                        review_item_decide(
                            bank=bank,
                            item_id=result.review_item_id,
                            decision=decision,
                            actor="sim-reviewer",
                            comment="genuine after all" if is_genuine else "",
                        )
                        counts["reviewed"] += 1
                else:
                    counts["investigated"] += 1
                    # The analyst investigates and records what it was (most of the time).
                    if analyst.random() < 0.9:
                        kind = "incident" if is_genuine else "dismissal"
                        feedback = {
                            "type": kind,
                            "signature": signature,
                            "host": host,
                            "value": value,
                            "reason": "confirmed outage" if is_genuine else "known batch load",
                        }
                        anomaly_event_record(
                            bank=bank, event=feedback, occurred_at=at + timedelta(minutes=30), fold_now=True
                        )
        reviews = ReviewItem.objects.filter(bank=bank).count()
    suppressed = counts["suppressed"]
    return {
        "label": label,
        "policy": policy,
        "alerts": counts["alerts"],
        "benign_alerts": counts["benign"],
        "genuine_alerts": counts["genuine"],
        "suppressed": suppressed,
        "suppression_precision": round(counts["suppressed_benign"] / suppressed, 4) if suppressed else None,
        "benign_suppressed_share": round(counts["suppressed_benign"] / counts["benign"], 4),
        "incidents_wrongly_suppressed": counts["suppressed_genuine"],
        "investigations_saved": suppressed,
        "investigations": counts["investigated"],
        "review_items": reviews,
    }


def churn_run(*, memory: bool, days: int = 360, seed: int = 5) -> dict:
    from banks.models import Bank, Tenant
    from beliefs.models import Intervention
    from beliefs.workloads.churn import (
        account_link,
        intervention_record,
        interventions_score,
        outcome_record,
        recommend,
    )
    from memoryhub.tenancy import tenant_scope

    rng = random.Random(seed)
    truth = {
        "SMB": {"discount-10": 0.30, "discount-20": 0.45, "exec-review": 0.25, "training": 0.65, "success-plan": 0.5},
        "Mid-Market": {
            "discount-10": 0.35,
            "discount-20": 0.4,
            "exec-review": 0.7,
            "training": 0.45,
            "success-plan": 0.55,
        },
        "Enterprise": {
            "discount-10": 0.2,
            "discount-20": 0.3,
            "exec-review": 0.6,
            "training": 0.5,
            "success-plan": 0.75,
        },
    }
    plays = sorted(truth["SMB"])
    accounts = [(f"acct-{n:03d}", list(truth)[n % 3]) for n in range(150)]
    label = "memory" if memory else "random"
    tenant = Tenant.objects.create(slug=f"churn-{label}", name=label)
    bank = Bank.objects.create(tenant=tenant, slug="churn", name="churn")
    failed: dict[str, set[str]] = defaultdict(set)  # truth as the simulator knows it at each moment
    related: dict[str, set[str]] = defaultdict(set)
    pending_outcomes: list[tuple[datetime, str, str, bool, str]] = []
    known_outcomes: list[tuple[datetime, str, str, bool]] = []  # (known at, segment, play, retained)
    busy_until: dict[str, datetime] = {}
    repeats = decisions = retained = scored = 0
    size_checks = size_mismatches = 0
    with tenant_scope(tenant.pk):
        for n in range(0, len(accounts), 2):
            a, b = accounts[n][0], accounts[n + 1][0]
            account_link(bank=bank, account=a, related_account=b, relation="shared_contact")
            related[a].add(b)
            related[b].add(a)
        for day in range(days):
            now = START + timedelta(days=day)
            # Outcomes that happen today, then scoring of closed horizons.
            for item in [p for p in pending_outcomes if p[0] <= now]:
                pending_outcomes.remove(item)
                at, account, play, kept, event_id = item
                outcome_record(
                    bank=bank,
                    account=account,
                    result="retained" if kept else "churned",
                    occurred_at=at,
                    event_id=event_id,
                )
            interventions_score(bank=bank, now=now)
            for account, segment in accounts:
                if rng.random() > 1 / 60:  # at risk about every two months
                    continue
                if busy_until.get(account, START) > now:
                    continue  # one play at a time: outcomes are attributed to the offer in flight
                busy_until[account] = now + timedelta(days=75)
                family = {account} | related[account]
                already_failed = set().union(*(failed[a] for a in family))
                if memory:
                    result = recommend(
                        bank=bank, account=account, segment=segment, now=now, plays=plays, limit=len(plays)
                    )
                    allowed = [r["play"] for r in result["recommendations"]]
                    if not allowed:
                        continue
                    play = rng.choice(allowed) if rng.random() < 0.2 else allowed[0]
                    for rec in result["recommendations"]:  # sample sizes must equal what the simulator knows
                        size_checks += 1
                        truth_n = [k for k in known_outcomes if k[0] <= now and k[1] == segment and k[2] == rec["play"]]
                        if rec["n"] != len(truth_n) or rec["retained"] != sum(k[3] for k in truth_n):
                            size_mismatches += 1
                else:
                    play = rng.choice(plays)
                decisions += 1
                repeats += play in already_failed
                intervention_record(bank=bank, account=account, segment=segment, play=play, occurred_at=now)
                kept = rng.random() < truth[segment][play]
                outcome_at = now + timedelta(days=45)
                pending_outcomes.append((outcome_at, account, play, kept, f"{account}-{play}-{day}"))
                known_at = now + timedelta(days=75)
                known_outcomes.append((known_at, segment, play, kept))
                # The simulator learns the failure when the horizon closes, as the service does.
                if not kept:
                    pending_fail = (known_at, account, play)
                    failures_at[pending_fail] = True
            for known_at, account, play in [k for k in list(failures_at) if k[0] <= now]:
                failed[account].add(play)
                del failures_at[(known_at, account, play)]
        scored_rows = Intervention.objects.filter(bank=bank, outcome__in=["retained", "churned"])
        scored = scored_rows.count()
        retained = scored_rows.filter(outcome="retained").count()
    return {
        "mode": label,
        "decisions": decisions,
        "repeat_play_rate": round(repeats / decisions, 4) if decisions else 0.0,
        "repeat_plays": repeats,
        "scored_outcomes": scored,
        "retention_rate": round(retained / scored, 4) if scored else None,
        "sample_size_checks": size_checks,
        "sample_size_mismatches": size_mismatches,
    }


failures_at: dict = {}


def tokens_run(turn_counts=(10, 30, 100), budget: int = 256) -> dict:
    from banks.models import Bank, Tenant
    from beliefs.services.mental_models import mental_model_create
    from beliefs.services.recall import recall
    from beliefs.services.retain import RetainItem, retain
    from memoryhub.tenancy import tenant_scope
    from memoryhub.tokens import count_tokens

    rng = random.Random(3)
    tenant = Tenant.objects.create(slug="tokens", name="tokens")
    bank = Bank.objects.create(tenant=tenant, slug="agent", name="agent")
    hosts = [f"db-{n}" for n in range(1, 6)]
    results = {}
    with tenant_scope(tenant.pk):
        model = mental_model_create(bank=bank, name="known-benign", question="Which alerts are known benign?")
        standing = count_tokens(model.answer)
        history_tokens: list[int] = []
        stateless = memory = 0
        for turn in range(1, max(turn_counts) + 1):
            host = rng.choice(hosts)
            text = (
                f"Turn {turn}: alert DiskIOHigh fired on {host} at value {rng.randint(70, 99)}. "
                f"Checked iostat, pg_stat_activity and the backup schedule; the nightly job was running on {host}. "
                f"Queue depth {rng.randint(1, 40)}, p99 write latency {rng.randint(100, 900)} ms, "
                f"replication lag {rng.randint(0, 30)} s. "
                f"Decision: {'dismissed as backup load' if rng.random() < 0.8 else 'escalated to on-call'}; "
                f"follow-up ticket OPS-{rng.randint(1000, 9999)} filed with the graphs attached."
            )
            history_tokens.append(count_tokens(text))
            stateless += sum(history_tokens)  # the whole history, re-read every turn
            recalled = recall(
                bank=bank, query=f"DiskIOHigh on {host}: known? what did we do last time?", budget_tokens=budget
            )
            memory += standing + recalled.tokens_used + history_tokens[-1]  # stored read + bounded recall + this turn
            retain(bank=bank, items=[RetainItem(content=text, occurred_at=START + timedelta(hours=turn))])
            if turn in turn_counts:
                results[turn] = {
                    "stateless_tokens": stateless,
                    "memory_tokens": memory,
                    "reduction": round(1 - memory / stateless, 4),
                }
    return {"budget_tokens": budget, "mental_model_tokens": standing, "turns": results}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=150)
    parser.add_argument("--database", default="memoryhub_eval_workloads")
    args = parser.parse_args()
    setup_django(args.database, fresh=True)
    from memoryhub.embeddings import warm_up

    warm_up()
    configs = [
        ("default", {}),
        ("threshold-1", {"anomaly": {"suppress_threshold": 1}}),
        ("threshold-5", {"anomaly": {"suppress_threshold": 5}}),
        ("no-decay", {"decay": {"horizon_days": 3650}}),
        ("no-value-range", {"anomaly": {"value_tolerance": 10.0}}),
    ]
    anomaly = []
    for label, policy in configs:
        with Timer() as timer:
            run = anomaly_run(label, days=args.days, policy=policy)
        run["seconds"] = round(timer.seconds, 1)
        print(run, file=sys.stderr)
        anomaly.append(run)
    churn = []
    for memory in (True, False):
        failures_at.clear()
        with Timer() as timer:
            run = churn_run(memory=memory)
        run["seconds"] = round(timer.seconds, 1)
        print(run, file=sys.stderr)
        churn.append(run)
    tokens = tokens_run()
    print(tokens, file=sys.stderr)
    lift = None
    if churn[0]["retention_rate"] is not None and churn[1]["retention_rate"]:
        lift = round(churn[0]["retention_rate"] - churn[1]["retention_rate"], 4)
    write_result(
        "workloads",
        {
            "machine": machine(),
            "days": args.days,
            "anomaly": anomaly,
            "churn": churn,
            "retention_lift": lift,
            "tokens": tokens,
        },
    )


if __name__ == "__main__":
    main()
