"""Workload evaluation (``make eval-workloads``): anomaly triage, churn plays, tokens per task.

1. Anomaly (``workload_anomaly``): benign recurring alerts, genuine look-alikes on other hosts,
   on the same host for another service, and on the same host and service inside the same
   value band after an analyst contest; drift and a pattern that returns real. Per
   configuration: suppression precision, benign share suppressed, incidents wrongly
   suppressed (by scenario), suppressions of contested beliefs, citation validity.
2. Churn (``workload_churn``): outcomes reported 0–30 days after the horizon closes,
   overlapping offers, unknown and missing outcomes, 60/90-day play horizons with overrides,
   contact-linked accounts. Memory vs no memory vs random: repeat-play rates (top-1 and over
   all proposed plays), sample-size exactness, retention with differences and intervals.
3. Tokens per resolved task: a stateless agent re-reading its whole history every turn vs
   one reading a stored mental model plus a bounded recall, over 10, 30 and 100 turns.
4. Poisoning (``workload_poisoning``): instruction-shaped texts planted through every write path
   (retain as user, tool and agent, import, analyst dismissals, review comments, lessons); counts
   of beliefs, mental-model answers, suppressions and plays resting on them (every count must be 0)
   next to control claims that do form beliefs. ``--poisoning-only`` runs just this part and
   replaces the ``poisoning`` entry of the last ``workloads.json``.

``--quick`` runs a smaller world (fewer days and accounts, three anomaly configurations) for
development; the figures in the README come from the full run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta

import workload_anomaly
import workload_churn
import workload_poisoning
from common import RESULTS, Timer, machine, setup_django, write_result

START = datetime(2026, 1, 1, tzinfo=UTC)
CONFIGS = [
    ("default", {}),
    ("threshold-1", {"anomaly": {"suppress_threshold": 1}}),
    ("threshold-5", {"anomaly": {"suppress_threshold": 5}}),
    ("no-decay", {"decay": {"horizon_days": 3650}}),
    ("no-value-range", {"anomaly": {"value_tolerance": 10.0}}),
    ("key-host", {"anomaly": {"key": "host"}}),
    ("no-contest-period", {"anomaly": {"contest_days": 0}}),
]
QUICK_CONFIGS = ("default", "key-host", "no-contest-period")


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


def _worker_setup(database: str) -> None:
    setup_django(database, migrate=False)  # (the parent migrated it)
    from memoryhub.embeddings import warm_up

    warm_up()


def _job(kind: str, label: str, options: dict) -> tuple[str, str, dict]:
    """One simulation in a worker process (each its own tenant in the same database)."""
    with Timer() as timer:
        if kind == "anomaly":
            run = workload_anomaly.run(label, **options)
        elif kind == "poisoning":
            run = workload_poisoning.run(label, **options)
        elif kind == "churn":
            run = workload_churn.run(label, **options)
        else:
            run = tokens_run()
    run["seconds"] = round(timer.seconds, 1)
    print(kind, label, run, file=sys.stderr, flush=True)
    return kind, label, run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=150, help="anomaly days")
    parser.add_argument("--churn-days", type=int, default=360)
    parser.add_argument("--accounts", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2, help="simulations run side by side (one per core)")
    parser.add_argument("--quick", action="store_true", help="a small world for development (not the README figures)")
    parser.add_argument("--database", default="memoryhub_eval_workloads")
    parser.add_argument("--poisoning-only", action="store_true", help="only the poisoning check, into workloads.json")
    args = parser.parse_args()
    if args.poisoning_only:
        poisoning_only(args.database)
        return
    if args.quick:
        args.days, args.churn_days, args.accounts = (
            min(args.days, 110),
            min(args.churn_days, 240),
            min(args.accounts, 90),
        )
    setup_django(args.database, fresh=True)
    jobs = [("churn", agent, {"accounts": args.accounts, "days": args.churn_days}) for agent in workload_churn.AGENTS]
    jobs += [
        ("anomaly", label, {"days": args.days, "policy": policy})
        for label, policy in CONFIGS
        if not args.quick or label in QUICK_CONFIGS
    ]
    jobs.append(("tokens", "tokens", {}))
    jobs.append(("poisoning", "poisoning", {}))
    context = multiprocessing.get_context("spawn")
    with Timer() as timer, ProcessPoolExecutor(args.workers, context, _worker_setup, (args.database,)) as pool:
        done = {(kind, label): run for kind, label, run in pool.map(_job, *zip(*jobs, strict=True))}
    anomaly = [done[("anomaly", label)] for label, _ in CONFIGS if ("anomaly", label) in done]
    churn = {agent: done[("churn", agent)] for agent in workload_churn.AGENTS}
    write_result(
        "workloads-quick" if args.quick else "workloads",
        {
            "machine": machine(),
            "quick": args.quick,
            "wall_seconds": round(timer.seconds, 1),
            "workers": args.workers,
            "days": args.days,
            "anomaly": anomaly,
            "churn": list(churn.values()),
            "retention_vs_random": workload_churn.difference(churn["memory"], churn["random"]),
            "retention_vs_no_memory": workload_churn.difference(churn["memory"], churn["no-memory"]),
            "tokens": done[("tokens", "tokens")],
            "poisoning": done[("poisoning", "poisoning")],
        },
    )
    print(workload_poisoning.summary(done[("poisoning", "poisoning")]))


def poisoning_only(database: str) -> None:
    """Run the poisoning check alone and put it into the last full ``workloads.json`` (with its own time)."""
    setup_django(database, fresh=True)
    from memoryhub.embeddings import warm_up

    warm_up()
    with Timer() as timer:
        run = workload_poisoning.run("poisoning")
    run["seconds"] = round(timer.seconds, 1)
    run["measured_at"] = machine()["measured_at"]
    path = RESULTS / "workloads.json"
    result = json.loads(path.read_text()) if path.exists() else {}
    result["poisoning"] = run
    write_result("workloads", result)
    print(workload_poisoning.summary(run))


if __name__ == "__main__":
    main()
