"""``make load``: a mixed agent load on loopback, a step sweep to find the knee, results in load.json.

1. A deployment of its own (``benchmarks/stack.py``: gunicorn, one Celery worker per
   queue, Redis, embedded PostgreSQL) with ``--banks`` banks of ``--episodes`` episodes
   each (bulk loaded like ``bench_scale.py``, plus 500 analyst dismissals per bank
   retained through the service and consolidated, so belief reads return beliefs).
2. Step sweep: ``--users`` agents paced at increasing total request rates, ``--step-seconds``
   each; the knee is the first offered rate whose p95 (all routes) is at least twice the
   p95 at the lowest rate.
3. The main run: ``--users`` agents with 0.5–1.5 s think time for ``--minutes``. A closed loop: the agents
   offer as much as the server answers, so it runs at saturation and its latencies are queueing.
4. The sustained run (``--sustain``, 30 requests/s by default, 0 skips it): the same agents paced at that
   total rate for ``--minutes``, after the main run (on the banks it grew): whether the rate holds with
   recall p95 within its bound, the floor's question, asked directly. Its recall p95 is also given per
   10-second window (``recall_windows``): a run's p95 made by a few bad stretches reads differently from one
   spread evenly.

Per route: requests, sustained requests/s, p50/p95/p99, error rate. Locust runs as its
own process (``benchmarks/load/locustfile.py``) so its gevent loop never shares a
process with Django.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from agent_calls import MIX, RECALL  # noqa: E402
from common import machine, write_result  # noqa: E402
from stack import ROOT, Stack  # noqa: E402

LOCUST = str(ROOT / ".venv" / "bin" / "locust")


def seed(stack: Stack, banks: int, episodes: int) -> list[list[str]]:
    from bench_scale import build_indexes, fill_statistics, load_bank
    from common import setup_django, synthetic_episode

    setup_django(stack.database, fresh=True)
    import numpy as np
    from django.db import connection

    from banks.services.api_keys import api_key_issue
    from banks.services.banks import bank_create, tenant_create
    from beliefs.services.consolidate import consolidate
    from beliefs.services.extract import bank_extract
    from beliefs.services.retain import RetainItem, retain
    from memoryhub.celery import app
    from memoryhub.embeddings import embed_texts
    from memoryhub.tokens import count_tokens

    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX IF EXISTS beliefs_episode_embedding_hnsw")
        cursor.execute("DROP INDEX IF EXISTS beliefs_episode_search_gin")
    rng = random.Random(11)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    texts = [synthetic_episode(rng, i, start) for i in range(3000)]
    for text in texts:
        text["tokens"] = count_tokens(text["content"])
    vectors = embed_texts([t["content"] for t in texts])
    np_rng = np.random.default_rng(5)
    targets, created = [], []
    for n in range(banks):
        tenant = tenant_create(slug=f"load-{n}", name=f"Load tenant {n}")
        bank = bank_create(tenant=tenant, slug=f"agents-{n}")
        load_bank(bank, episodes - 500, texts, vectors, np_rng)
        created.append(bank)
        targets.append([bank.slug, api_key_issue(tenant=tenant, name="load", scopes=["read", "write"]).raw_key])
    build_indexes(created[0])
    app.conf.task_always_eager = False
    for bank in created:
        fill_statistics(bank, texts)
        now = datetime.now(UTC)
        items = [
            RetainItem(
                content=f"Analyst closed {sig} on {host} as benign: nightly backup ({n}).",
                occurred_at=now - timedelta(hours=n),
                source="analyst",
                metadata={"event": "dismissal", "signature": sig, "host": host},
            )
            for n, (sig, host) in enumerate(
                (rng.choice(["DiskLatencyHigh", "ReplicaLag", "CPUSaturation"]), f"db-{rng.randint(1, 17):02d}")
                for _ in range(500)
            )
        ]
        retain(bank=bank, items=items)
        while bank_extract(bank=bank).remaining:
            pass
        while consolidate(bank=bank).remaining:
            pass
    from beliefs.services.vector_indexes import vector_indexes_refresh

    print("banks' own vector indexes:", vector_indexes_refresh(), flush=True)  # as after any bulk import
    import redis

    redis.Redis.from_url(stack.redis_url).flushdb()  # the seed's own queued work and markers: already done inline
    connection.close()
    return targets


def reuse_seed(stack: Stack, banks: int) -> list[list[str]]:
    """The banks an earlier run seeded (``--reuse``), each with a fresh API key (raw keys are never stored)."""
    from common import setup_django

    setup_django(stack.database, fresh=False)
    from django.db import connection

    from banks.models import Bank
    from banks.services.api_keys import api_key_issue

    targets = []
    for n in range(banks):
        bank = Bank.objects.select_related("tenant").get(slug=f"agents-{n}", tenant__slug=f"load-{n}")
        targets.append([bank.slug, api_key_issue(tenant=bank.tenant, name="load", scopes=["read", "write"]).raw_key])
    connection.close()
    return targets


def process_groups(stack: Stack, locust_pid: int | None = None) -> dict[str, list]:
    """The deployment's processes by role: web (gunicorn and its workers), each Celery worker, PostgreSQL."""
    import psutil

    def tree(pid):
        try:
            root = psutil.Process(pid)
            return [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    groups = {"web": tree(stack.web.pid) if stack.web else []}
    for name, process in stack.workers.items():
        groups[f"worker-{name}"] = tree(process.pid)
    pid_file = stack.data_dir / "pg" / "postmaster.pid"
    if pid_file.exists():
        groups["postgresql"] = tree(int(pid_file.read_text().split()[0]))
    return groups


def cpu_seconds(stack: Stack) -> dict[str, dict[int, float]]:
    """CPU seconds (user and system) each live process of the deployment has used so far, by role and pid."""
    import psutil

    used: dict[str, dict[int, float]] = {}
    for role, processes in process_groups(stack).items():
        for process in processes:
            try:
                times = process.cpu_times()
            except psutil.NoSuchProcess:
                continue
            used.setdefault(role, {})[process.pid] = times.user + times.system
    return used


def cpu_spent(before: dict, after: dict) -> dict[str, float]:
    """CPU seconds each role used between two ``cpu_seconds`` readings (a process new since ``before`` counts whole)."""
    return {
        role: sum(t - before.get(role, {}).get(pid, 0.0) for pid, t in by_pid.items()) for role, by_pid in after.items()
    }


class CpuMeter:
    """CPU seconds each role used over a run. PostgreSQL backends come and go, so the server is sampled as a
    tree each second and a backend's last sample counts (a backend living under a second is missed)."""

    def __init__(self, stack: Stack):
        self.stack = stack
        self.used: dict[str, dict[int, float]] = {}
        self.start: dict[str, dict[int, float]] = {}
        self._stop = None

    def _sample(self, into: dict) -> None:
        for role, by_pid in cpu_seconds(self.stack).items():
            into.setdefault(role, {}).update(by_pid)

    def __enter__(self):
        import threading

        self._sample(self.start)
        self._stop = threading.Event()

        def loop():
            while not self._stop.wait(1.0):
                self._sample(self.used)

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()
        self.started = time.monotonic()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._sample(self.used)
        self.seconds = time.monotonic() - self.started

    def cores(self) -> dict[str, float]:
        """Average cores each role kept busy (1.0 = one core all the time)."""
        result = {role: round(seconds / self.seconds, 3) for role, seconds in cpu_spent(self.start, self.used).items()}
        result["total"] = round(sum(result.values()), 3)
        return result


class CheckpointWatch:
    """When PostgreSQL started checkpoints during a run, in seconds from its start (polled every 2 s).

    After a checkpoint starts, the first change to each page writes the whole page to the WAL: the minute after
    one costs the machine noticeably more (docs/benchmarks/load.md), so a run says where its checkpoints fell.
    """

    def __init__(self):
        self.started_at_s: list[int] = []
        self._stop = None

    @staticmethod
    def _count() -> int:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT num_timed + num_requested FROM pg_stat_checkpointer")
            return int(cursor.fetchone()[0])

    def __enter__(self):
        import threading

        self._stop = threading.Event()
        self.started = time.monotonic()
        first = self._count()

        def loop():
            from django.db import connection

            seen = first
            while not self._stop.wait(2.0):
                now = self._count()
                if now > seen:
                    self.started_at_s += [round(time.monotonic() - self.started)] * (now - seen)
                    seen = now
            connection.close()

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def wait_for_background(stack: Stack, timeout: float = 900) -> float:
    """Wait until no Celery task is queued or running (a retain's extraction and consolidation); seconds waited.

    A step measured while the workers still drain the previous step's retains measures that backlog too:
    the first sweep's 1 req/s step ran right after an unpaced warm-up and its recall median was 730 ms.
    """
    import redis

    from memoryhub.queues import queue_depths

    client = redis.Redis.from_url(stack.redis_url)
    started, idle_polls = time.monotonic(), 0
    while time.monotonic() - started < timeout:
        # With acks_late a task stays in kombu's "unacked" hash from delivery until it finished.
        busy = sum(queue_depths().values()) + client.hlen("unacked")
        idle_polls = idle_polls + 1 if busy == 0 else 0
        if idle_polls >= 3:
            break
        time.sleep(1)
    return round(time.monotonic() - started, 1)


def run_locust(stack: Stack, targets, *, users: int, seconds: int, rate: float | None, prefix: Path) -> dict:
    env = {**os.environ, "MEMORYHUB_LOAD_TARGETS": json.dumps(targets)}
    if rate:
        env["MEMORYHUB_LOAD_RATE"] = str(rate / users)
    command = [LOCUST, "-f", str(HERE / "locustfile.py"), "--headless", "--host", stack.base_url]
    command += ["-u", str(users), "-r", str(users), "--run-time", f"{seconds}s", "--csv", str(prefix)]
    command += ["--csv-full-history", "--only-summary", "--loglevel", "WARNING"]
    subprocess.run(command, env=env, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    routes = {}
    with open(f"{prefix}_stats.csv") as handle:
        for row in csv.DictReader(handle):
            count = int(row["Request Count"])
            routes[row["Name"]] = {
                "requests": count,
                "requests_per_s": round(float(row["Requests/s"]), 2),
                "p50_ms": float(row["50%"]),
                "p95_ms": float(row["95%"]),
                "p99_ms": float(row["99%"]),
                "error_rate": round(int(row["Failure Count"]) / count, 4) if count else 0.0,
            }
    return routes


def recall_windows(prefix: Path, *, seconds: int = 10, floor_ms: float = 300) -> dict:
    """The recall route's p95 over consecutive ``seconds``-long windows of a run (locust's full history keeps each
    route's percentiles over its last 10 seconds, once a second): whether a run's p95 is spread evenly or made
    by a few bad stretches."""
    with open(f"{prefix}_stats_history.csv") as handle:
        rows = [row for row in csv.DictReader(handle) if row["Name"] == RECALL and row["95%"] not in ("", "N/A")]
    if not rows:
        return {}
    start = int(rows[0]["Timestamp"])
    by_second = {int(row["Timestamp"]) - start: float(row["95%"]) for row in rows}
    windows = [by_second[t] for t in sorted(by_second) if t >= seconds and t % seconds == 0]
    if not windows:
        return {}
    ordered = sorted(windows)
    return {
        "window_s": seconds,
        "windows": len(windows),
        f"within_{floor_ms:g}_ms": round(sum(w <= floor_ms for w in windows) / len(windows), 3),
        "median_window_p95_ms": ordered[len(ordered) // 2],
        "worst_window_p95_ms": ordered[-1],
        "p95_by_window_ms": windows,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--banks", type=int, default=5)
    parser.add_argument("--episodes", type=int, default=10_000)
    # 40 agents: at 0.5-1.5 s of thinking 20 agents cannot offer much more than 15 requests/s, whatever the server.
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--rates", default="1,4,8,12,16,20,24,28,32", help="offered requests/s for the step sweep")
    parser.add_argument("--step-seconds", type=int, default=30)
    parser.add_argument("--output", default="load")
    parser.add_argument("--reuse", action="store_true", help="keep the banks an earlier run seeded (quick reruns)")
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--web-threads", type=int, default=4, help="gunicorn threads per worker")
    parser.add_argument("--skip-steps", action="store_true", help="no step sweep")
    parser.add_argument("--skip-main", action="store_true", help="no closed-loop main run")
    parser.add_argument("--sustain", type=float, default=30, help="requests/s of the paced sustained run (0: none)")
    args = parser.parse_args()

    stack = Stack("load", database="memoryhub_load", web_workers=args.web_workers, web_threads=args.web_threads)
    stack.use_in_this_process()
    stack.start_redis()
    try:
        started = time.monotonic()
        if args.reuse:
            targets = reuse_seed(stack, args.banks)
        else:
            print(f"seeding {args.banks} banks of {args.episodes:,} episodes...", flush=True)
            targets = seed(stack, args.banks, args.episodes)
        seed_s = time.monotonic() - started
        stack.start_web()
        stack.start_workers()
        out = stack.data_dir / "locust"
        out.mkdir(parents=True, exist_ok=True)
        run_locust(stack, targets, users=args.users, seconds=20, rate=None, prefix=out / "warmup")
        drains = {"warmup": wait_for_background(stack)}
        steps = []
        for rate in [] if args.skip_steps else [float(r) for r in args.rates.split(",")]:
            routes = run_locust(
                stack, targets, users=args.users, seconds=args.step_seconds, rate=rate, prefix=out / f"step-{rate:g}"
            )
            total = routes.get("Aggregated", {})
            recall = routes.get("recall (budget 512)", {})
            steps.append(
                {
                    "offered_rps": rate,
                    "achieved_rps": total.get("requests_per_s"),
                    "p50_ms": total.get("p50_ms"),
                    "p95_ms": total.get("p95_ms"),
                    "p99_ms": total.get("p99_ms"),
                    "recall_p50_ms": recall.get("p50_ms"),
                    "recall_p95_ms": recall.get("p95_ms"),
                    "error_rate": total.get("error_rate"),
                    # How long the workers took afterwards to finish the step's background work.
                    "background_drain_s": wait_for_background(stack),
                }
            )
            print(f"  step {rate:g} req/s: {steps[-1]}", flush=True)
        base = steps[0]["p95_ms"] if steps else None
        knee = next((s for s in steps if base and s["p95_ms"] >= 2 * base), None)
        main_routes, cores, main_checkpoints = {}, {}, None
        if not args.skip_main:
            print(f"main run: {args.users} agents for {args.minutes} minutes...", flush=True)
            with CpuMeter(stack) as meter, CheckpointWatch() as main_checkpoints:
                main_routes = run_locust(
                    stack, targets, users=args.users, seconds=int(args.minutes * 60), rate=None, prefix=out / "main"
                )
            cores = meter.cores()
            drains["main"] = wait_for_background(stack)
            print(f"cores busy during the main run: {cores}", flush=True)
        sustained = None
        if args.sustain:
            print(f"sustained run: {args.sustain:g} requests/s for {args.minutes} minutes...", flush=True)
            with CpuMeter(stack) as meter, CheckpointWatch() as checkpoints:
                routes = run_locust(
                    stack,
                    targets,
                    users=args.users,
                    seconds=int(args.minutes * 60),
                    rate=args.sustain,
                    prefix=out / "sustained",
                )
            sustained = {
                "offered_rps": args.sustain,
                "routes": routes,
                "cores": meter.cores(),
                "recall_windows": recall_windows(out / "sustained"),
                "checkpoints_started_at_s": checkpoints.started_at_s,
            }
            drains["sustained"] = wait_for_background(stack)
            print(f"sustained: {routes.get('Aggregated')}, recall {routes.get('recall (budget 512)')}", flush=True)
    finally:
        stack.stop()
        stack.stop_database_server()
    result = {
        "machine": machine(),
        "setup": {
            "banks": args.banks,
            "episodes_per_bank": args.episodes,
            "agents": args.users,
            "minutes": args.minutes,
            "mix": f"retain 10 items : recall budget 512 : belief list = {' : '.join(map(str, MIX.values()))}",
            "think_time_s": "0.5-1.5",
            "web": f"gunicorn {args.web_workers} workers x {args.web_threads} threads",
            "seed_s": round(seed_s, 1),
            "background_drain_after_warmup_s": drains["warmup"],
            "background_drain_after_main_s": drains.get("main"),
            "background_drain_after_sustained_s": drains.get("sustained"),
            "reused_seed": args.reuse,
            "steps": "each starts with no background task queued or running",
            "step_seconds": args.step_seconds,
        },
        "main": main_routes,
        # Average cores each role kept busy in the main run (the machine has 2; the load generator is not counted).
        "main_cores": cores,
        # Seconds into the main run at which PostgreSQL started a checkpoint.
        "main_checkpoints_started_at_s": main_checkpoints.started_at_s if main_checkpoints else None,
        # Paced at the floor's rate for as long as the main run, after it.
        "sustained": sustained,
        "steps": steps,
        "knee": {
            "baseline_p95_ms": base,
            "offered_rps": knee["offered_rps"] if knee else None,
            "achieved_rps": knee["achieved_rps"] if knee else None,
            "p95_ms": knee["p95_ms"] if knee else None,
            "note": "first offered rate whose p95 is at least twice the p95 at the lowest rate"
            + ("" if knee else "; not reached within the rates tried"),
        },
    }
    path = write_result(args.output, result)
    summary = {"main": main_routes.get("Aggregated"), "knee": result["knee"]}
    if sustained:
        summary["sustained"] = sustained["routes"].get("Aggregated")
    print(json.dumps(summary, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
