"""CPU per request of each load-run call, one request at a time: where ``make load``'s cores go.

Starts the load run's deployment (``run_load.py``'s stack and banks: ``--reuse`` keeps the banks an earlier run
seeded), then sends each call ``--requests`` times in a row from one client and counts the CPU seconds the web
workers and PostgreSQL used meanwhile (the background workers' share of a retain is counted after they drain).
With no concurrency the figures are what each call costs, not what it waits for; ``make load`` needs the mix's
weighted sum under 2 cores / 30 requests/s = 67 ms (less what the load generator takes) to reach its floor.

    .venv/bin/python benchmarks/load/route_cost.py --reuse [--requests 200] [--label NAME]

Results: ``benchmarks/results/route-cost.json`` (one entry per label).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from agent_calls import BELIEFS, MIX, RECALL, RETAIN, beliefs_path, recall_call, retain_call  # noqa: E402
from common import RESULTS, machine, write_labelled_result  # noqa: E402
from run_load import cpu_seconds, cpu_spent, reuse_seed, seed, wait_for_background  # noqa: E402
from stack import Stack  # noqa: E402

MIX_NAME = f"mix ({' : '.join(str(weight) for weight in MIX.values())})"


def measure(stack: Stack, client, send, requests: int) -> dict:
    for _ in range(10):  # warm: caches, connections, the first query plans
        send(client)
    wait_for_background(stack)
    before, started = cpu_seconds(stack), time.monotonic()
    latencies = []
    for _ in range(requests):
        t0 = time.perf_counter()
        send(client)
        latencies.append(time.perf_counter() - t0)
    wall = time.monotonic() - started
    during = cpu_spent(before, cpu_seconds(stack))
    wait_for_background(stack, timeout=600)
    drained = cpu_spent(before, cpu_seconds(stack))
    per = 1000 / requests
    web, pg = during.get("web", 0.0) * per, during.get("postgresql", 0.0) * per
    background = sum(v for k, v in drained.items() if k.startswith("worker-")) * per
    latencies.sort()
    return {
        "web_ms": round(web, 2),
        "postgresql_ms": round(pg, 2),
        "serving_ms": round(web + pg, 2),
        "background_ms": round(background, 2),
        "latency_p50_ms": round(latencies[len(latencies) // 2] * 1000, 1),
        "wall_ms": round(wall * per, 1),
    }


def main() -> None:
    import httpx

    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--label", default="current")
    parser.add_argument("--routes", default=",".join(MIX), help="comma-separated route names")
    args = parser.parse_args()

    stack = Stack("load", database="memoryhub_load")
    stack.use_in_this_process()
    stack.start_redis()
    try:
        targets = reuse_seed(stack, 5) if args.reuse else seed(stack, 5, 10_000)
        stack.start_web()
        stack.start_workers()
        bank, key = targets[0]
        rng = random.Random(7)
        senders = {
            RETAIN: lambda c: _post(c, retain_call(rng, bank, "agent-probe")),
            RECALL: lambda c: _post(c, recall_call(rng, bank)),
            BELIEFS: lambda c: c.get(beliefs_path(bank)).raise_for_status(),
        }
        routes = {}
        with httpx.Client(base_url=stack.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as client:
            for name in args.routes.split(","):
                routes[name] = measure(stack, client, senders[name], args.requests)
                print(name, routes[name], flush=True)
    finally:
        stack.stop()
        stack.stop_database_server()
    if set(routes) == set(MIX):
        weight = sum(MIX.values())
        routes[MIX_NAME] = {
            key: round(sum(routes[name][key] * w for name, w in MIX.items()) / weight, 2)
            for key in ("web_ms", "postgresql_ms", "serving_ms", "background_ms")
        }
    entry = {"machine": machine(), "requests_per_route": args.requests, "routes": routes}
    path = write_labelled_result(RESULTS / "route-cost.json", args.label, entry)
    print(json.dumps(routes.get(MIX_NAME), indent=1))
    print(f"wrote {path}")


def _post(client, call: tuple[str, dict]) -> None:
    path, body = call
    client.post(path, json=body).raise_for_status()


if __name__ == "__main__":
    main()
