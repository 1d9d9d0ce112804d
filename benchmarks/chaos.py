"""``make chaos``: faults injected into a whole deployment while 1,000 retains run.

A deployment of its own (``benchmarks/stack.py``: embedded PostgreSQL, redis-server,
gunicorn, one Celery worker per queue) takes 1,000 items — 50 synchronous and 50
asynchronous requests of 10 — while the harness SIGKILLs worker processes mid-task,
crashes and restarts Redis (no snapshot: queued messages are lost), stops and restarts
PostgreSQL, and every task is published twice (``MEMORYHUB_FAULT_DUPLICATE_DELIVERY``).
Clients retry a 503 with the same ``Idempotency-Key``, as a client should. Afterwards:

- every accepted item is stored exactly once;
- every retain batch is in a final state;
- the beliefs equal those of a clean run over the same items (run inline, no faults);
- every request made while a dependency was down got a JSON answer (503 while the
  database was down), never a 500, never a wait past 10 s.

A second case: during a 5,000-item import into one tenant's bank, an erasure in another
tenant completes within 10 s. Results: ``benchmarks/results/chaos.json``; the process
exits non-zero when a guarantee failed.
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta

import httpx
from common import machine, write_result
from stack import Stack

SIGNATURES = ["DiskIOHigh", "CpuSpike", "ReplicaLag", "MemoryPressure", "QueueBacklog"]
HOSTS = ["db-1", "db-2", "web-1", "web-2", "cache-1"]
PEOPLE = [f"Person{n:02d}" for n in range(40)]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Wonka"]
LATENCY_CEILING_S = 10.0


def workload(count: int, start: datetime) -> list[dict]:
    """Typed alert feedback (beliefs with proofs and contradictions) and free-text claims that change over time."""
    rng = random.Random(14)
    pairs = [(s, h) for s in SIGNATURES for h in HOSTS]
    items = []
    for i in range(count):
        at = (start + timedelta(minutes=30 * i)).isoformat()
        if i % 5 < 3:
            signature, host = pairs[i % len(pairs)]
            kind = "incident" if (i % 37 == 0 and host.startswith("db")) else "dismissal"
            if kind == "incident":
                content = f"Confirmed incident: {signature} on {host} was a real outage (case {i})."
            else:
                content = f"Analyst closed {signature} on {host} as benign: {rng.choice(['backup', 'load test'])}."
            metadata = {"event": kind, "signature": signature, "host": host}
            item = {"content": content, "source": "analyst", "metadata": metadata}
        else:
            person = PEOPLE[i % len(PEOPLE)]
            company = COMPANIES[(i // 400 + PEOPLE.index(person)) % len(COMPANIES)]
            item = {"content": f"{person} works at {company}.", "source": "chat", "subject": f"user:{person}"}
        items.append({**item, "occurred_at": at, "idempotency_key": f"item-{i}"})
    return items


class Recorder:
    """Every HTTP attempt: when, what, how long, what came back."""

    def __init__(self, started: float):
        self.started = started
        self.attempts: list[dict] = []
        self.lock = threading.Lock()
        self.outages: list[tuple[str, float, float | None]] = []  # (dependency, down_at, up_at)

    def now(self) -> float:
        return time.monotonic() - self.started

    def record(self, route: str, response: httpx.Response | None, elapsed: float, error: str = "") -> None:
        entry = {"t": round(self.now() - elapsed, 3), "route": route, "elapsed_s": round(elapsed, 3)}
        if response is None:
            entry.update(status=None, error=error)
        else:
            entry["status"] = response.status_code
            try:
                entry["code"] = response.json().get("code") if response.status_code >= 400 else None
                entry["json"] = True
            except ValueError:
                entry["json"] = False
        with self.lock:
            self.attempts.append(entry)

    def down(self, dependency: str) -> None:
        self.outages.append((dependency, self.now(), None))

    def up(self, dependency: str) -> None:
        for index, (name, down_at, up_at) in enumerate(self.outages):
            if name == dependency and up_at is None:
                self.outages[index] = (name, down_at, self.now())

    def during_outage(self, entry: dict) -> str | None:
        for name, down_at, up_at in self.outages:
            end = up_at if up_at is not None else float("inf")
            if down_at <= entry["t"] + entry["elapsed_s"] and entry["t"] <= end:
                return name
        return None


def call(client: httpx.Client, recorder: Recorder, route: str, method: str, url: str, **kwargs):
    started = time.monotonic()
    try:
        response = client.request(method, url, timeout=LATENCY_CEILING_S + 5, **kwargs)
    except httpx.HTTPError as exc:
        recorder.record(route, None, time.monotonic() - started, type(exc).__name__)
        return None
    recorder.record(route, response, time.monotonic() - started)
    return response


def send_requests(stack, key, bank, chunks, recorder, accepted, pace):
    with httpx.Client(base_url=stack.base_url, headers={"Authorization": f"Bearer {key}"}) as client:
        while chunks:
            try:
                number, mode, items = chunks.pop()
            except IndexError:
                return
            body = {"items": items, **({"async": True} if mode == "async" else {})}
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                response = call(
                    client,
                    recorder,
                    f"retain-{mode}",
                    "POST",
                    f"/api/v1/banks/{bank}/retain",
                    json=body,
                    headers={"Idempotency-Key": f"chaos-request-{number}"},
                )
                if response is not None and response.status_code in (201, 202):
                    accepted[number] = {"mode": mode, "batch_id": response.json()["batch_id"], "items": items}
                    break
                time.sleep(0.5)
            time.sleep(pace)


def probe(stack, key, bank, recorder, stop: threading.Event):
    """Reads throughout the run: recall and the belief list, which need the database."""
    with httpx.Client(base_url=stack.base_url, headers={"Authorization": f"Bearer {key}"}) as client:
        while not stop.is_set():
            call(
                client,
                recorder,
                "recall",
                "POST",
                f"/api/v1/banks/{bank}/recall",
                json={"query": "is DiskIOHigh on db-1 benign?", "budget_tokens": 256},
            )
            call(client, recorder, "beliefs", "GET", f"/api/v1/banks/{bank}/beliefs/")
            stop.wait(0.4)


def sweep(stop: threading.Event, every: float = 5.0):
    """What beat does in production, more often: re-queue lost batches and stalled banks."""
    from memoryhub.celery import app

    while not stop.wait(every):
        for name in ("beliefs.tasks.requeue_stalled_batches_task", "beliefs.tasks.resume_stalled_banks_task"):
            try:
                app.send_task(name)
            except Exception:  # the broker is down right now; the next round tries again
                pass


def inject_faults(stack: Stack, recorder: Recorder, log: list):
    def note(what: str, **extra):
        log.append({"t": round(recorder.now(), 2), "fault": what, **extra})
        print(f"  t={recorder.now():5.1f}s {what} {extra or ''}", flush=True)

    time.sleep(3)
    note("SIGKILL background worker's pool process mid-task", pid=stack.kill_worker_child("background"))
    time.sleep(3)
    note("SIGKILL interactive worker's pool process mid-task", pid=stack.kill_worker_child("interactive"))
    time.sleep(3)
    stack.kill_worker("interactive")
    note("SIGKILL the whole interactive worker (its reserved messages stay unacknowledged)")
    time.sleep(2)
    stack.start_worker("interactive")
    stack.wait_worker_ready("interactive")
    note("interactive worker restarted")
    time.sleep(2)
    recorder.down("redis")
    stack.stop_redis()
    note("Redis crashed (no snapshot: every queued message lost)")
    time.sleep(3)
    stack.start_redis()
    recorder.up("redis")
    note("Redis restarted")
    time.sleep(3)
    recorder.down("postgres")
    stack.stop_postgres()
    note("PostgreSQL stopped (fast shutdown: open transactions rolled back)")
    time.sleep(5)
    stack.start_postgres()
    recorder.up("postgres")
    note("PostgreSQL restarted")


def beliefs_snapshot(bank) -> list[tuple]:
    from beliefs.models import Belief

    rows = Belief.objects.filter(bank=bank).values_list(
        "statement", "status", "proof_count", "contradiction_count", "confidence"
    )
    return sorted((s, st, p, c, round(conf, 4)) for s, st, p, c, conf in rows)


def settled(bank, batch_ids) -> bool:
    from beliefs.models import EpisodeExtraction, Fact, RetainBatch
    from memoryhub.queues import queue_depths

    if RetainBatch.objects.filter(pk__in=batch_ids).exclude(status__in=["done", "failed"]).exists():
        return False
    if EpisodeExtraction.objects.filter(bank=bank, extracted_at__isnull=True).exists():
        return False
    if Fact.objects.filter(bank=bank, consolidated_at__isnull=True).exists():
        return False
    return all(depth == 0 for depth in queue_depths().values())


def clean_run(bank, items) -> None:
    """The same items, no faults, one worker: the chain runs inline after each batch."""
    import beliefs.tasks  # noqa: F401 - registered here, so eager mode runs the chain inline
    from beliefs.services.retain import RetainItem, retain
    from memoryhub.celery import app

    app.conf.task_always_eager = True
    try:
        for offset in range(0, len(items), 10):
            chunk = [RetainItem.from_json({**RetainItem("").to_json(), **item}) for item in items[offset : offset + 10]]
            retain(bank=bank, items=chunk)
    finally:
        app.conf.task_always_eager = False


def erasure_during_import(stack: Stack, keys: dict, banks: dict, import_items: int) -> dict:
    """Tenant A imports ``import_items`` items asynchronously; tenant B's erasure must not wait for it."""
    from beliefs.models import RetainBatch

    start = datetime.now(UTC) - timedelta(days=3)
    rows = [
        {
            "content": f"Imported ticket {n}: customer reported slow exports on plan {n % 7}.",
            "occurred_at": (start + timedelta(seconds=30 * n)).isoformat(),
        }
        for n in range(import_items)
    ]
    batch_ids = []
    with httpx.Client(base_url=stack.base_url, timeout=30) as client:
        auth_a = {"Authorization": f"Bearer {keys['import']}"}
        auth_b = {"Authorization": f"Bearer {keys['other']}"}
        client.post(
            f"/api/v1/banks/{banks['other'].slug}/retain",
            headers=auth_b,
            json={
                "items": [
                    {"content": f"Zed Quinlan called about invoice {n}.", "subject": "customer:zed"} for n in range(3)
                ]
            },
        ).raise_for_status()
        for offset in range(0, import_items, 100):
            response = client.post(
                f"/api/v1/banks/{banks['import'].slug}/retain",
                headers=auth_a,
                json={"items": rows[offset : offset + 100], "async": True},
            )
            batch_ids.append(response.json()["batch_id"])
        submitted = time.monotonic()
        waiting_batches = RetainBatch.objects.filter(pk__in=batch_ids).exclude(status="done").count()
        response = client.post(
            "/api/v1/erasure-requests/", headers=auth_b, json={"subject": "customer:zed", "bank": banks["other"].slug}
        )
        request_id = response.json()["id"]
        erasure_started = time.monotonic()
        erased_after = None
        while time.monotonic() - erasure_started < 60:
            status = client.get(f"/api/v1/erasure-requests/{request_id}", headers=auth_b).json()["status"]
            if status == "done":
                erased_after = time.monotonic() - erasure_started
                break
            time.sleep(0.1)
        import_left = RetainBatch.objects.filter(pk__in=batch_ids).exclude(status="done").count()
        while RetainBatch.objects.filter(pk__in=batch_ids).exclude(status="done").exists():
            if time.monotonic() - submitted > 900:
                break
            time.sleep(1)
        import_seconds = time.monotonic() - submitted
    return {
        "import_items": import_items,
        "import_batches": len(batch_ids),
        "import_batches_waiting_when_erasure_was_requested": waiting_batches,
        "import_batches_still_waiting_when_erasure_finished": import_left,
        "erasure_seconds": round(erased_after, 2) if erased_after is not None else None,
        "import_seconds": round(import_seconds, 1),
        "within_10_s": erased_after is not None and erased_after <= 10,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--import-items", type=int, default=5000)
    parser.add_argument("--pace", type=float, default=1.0, help="seconds each client waits between requests")
    args = parser.parse_args()

    stack = Stack(
        "chaos",
        database="memoryhub_chaos",
        extra_env={
            "MEMORYHUB_FAULT_DUPLICATE_DELIVERY": "1",
            "MEMORYHUB_STALLED_AFTER_SECONDS": "15",
        },
    )
    stack.use_in_this_process()
    import os

    os.environ["MEMORYHUB_FAULT_DUPLICATE_DELIVERY"] = "0"  # the harness's own clean run is fault-free
    stack.start_redis()
    try:
        run(stack, args)
    finally:
        stack.stop()
        stack.stop_database_server()


def run(stack: Stack, args) -> None:
    from common import setup_django

    setup_django(stack.database, fresh=True)
    from banks.services.api_keys import api_key_issue
    from banks.services.banks import bank_create, tenant_create
    from beliefs.models import Episode, Evidence, Fact, RetainBatch

    tenant_a, tenant_b = tenant_create(slug="chaos-a", name="A"), tenant_create(slug="chaos-b", name="B")
    banks = {
        "chaos": bank_create(tenant=tenant_a, slug="chaos", name="under faults"),
        "clean": bank_create(tenant=tenant_a, slug="clean", name="clean run"),
        "import": bank_create(tenant=tenant_a, slug="import", name="bulk import"),
        "other": bank_create(tenant=tenant_b, slug="other", name="another tenant"),
    }
    scopes = ["read", "write", "admin"]
    keys = {
        "chaos": api_key_issue(tenant=tenant_a, name="chaos", scopes=scopes).raw_key,
        "import": api_key_issue(tenant=tenant_a, name="import", scopes=scopes).raw_key,
        "other": api_key_issue(tenant=tenant_b, name="other", scopes=scopes).raw_key,
    }
    items = workload(args.items, datetime.now(UTC) - timedelta(days=25))

    print("clean run (inline, no faults)...", flush=True)
    clean_started = time.monotonic()
    clean_run(banks["clean"], items)
    clean = beliefs_snapshot(banks["clean"])
    print(f"  {len(clean)} beliefs in {time.monotonic() - clean_started:.1f} s", flush=True)

    print("starting the deployment...", flush=True)
    from django.db import connection

    connection.close()
    stack.start_web()
    stack.start_workers()

    chunks = [(n, "sync" if n % 2 == 0 else "async", items[10 * n : 10 * n + 10]) for n in range(len(items) // 10)]
    random.Random(7).shuffle(chunks)
    recorder = Recorder(time.monotonic())
    accepted: dict[int, dict] = {}
    faults: list[dict] = []
    stop = threading.Event()
    clients = [
        threading.Thread(
            target=send_requests, args=(stack, keys["chaos"], "chaos", chunks, recorder, accepted, args.pace)
        )
        for _ in range(4)
    ]
    helpers = [
        threading.Thread(target=probe, args=(stack, keys["chaos"], "chaos", recorder, stop)),
        threading.Thread(target=sweep, args=(stop,)),
    ]
    fault_thread = threading.Thread(target=inject_faults, args=(stack, recorder, faults))
    print("1,000 retains under faults...", flush=True)
    for thread in [*clients, *helpers, fault_thread]:
        thread.start()
    for thread in [*clients, fault_thread]:
        thread.join()
    requests_done = recorder.now()
    print(f"  requests done at t={requests_done:.1f} s; waiting for the background work to settle", flush=True)

    connection.close()
    batch_ids = [entry["batch_id"] for entry in accepted.values()]
    settle_deadline = time.monotonic() + 600
    snapshots: list = []
    while time.monotonic() < settle_deadline:
        try:
            if settled(banks["chaos"], batch_ids):
                snapshots.append(beliefs_snapshot(banks["chaos"]))
                if len(snapshots) >= 2 and snapshots[-1] == snapshots[-2]:
                    break
        except Exception as exc:  # the harness's own connection died with the restart
            print(f"  (harness reconnects: {type(exc).__name__})")
            connection.close()
        time.sleep(5)
    settled_at = recorder.now()
    stop.set()
    for thread in helpers:
        thread.join()

    chaos = beliefs_snapshot(banks["chaos"])
    keys_expected = {f"key:{item['idempotency_key']}" for entry in accepted.values() for item in entry["items"]}
    stored = Counter(Episode.objects.filter(bank=banks["chaos"]).values_list("dedupe_key", flat=True))
    batch_states = Counter(RetainBatch.objects.filter(pk__in=batch_ids).values_list("status", flat=True))

    attempts = recorder.attempts
    for entry in attempts:
        entry["outage"] = recorder.during_outage(entry)
    during = [a for a in attempts if a["outage"]]
    statuses = Counter(str(a["status"]) for a in attempts)
    outage_statuses = {
        name: dict(Counter(str(a["status"]) for a in during if a["outage"] == name)) for name in ("redis", "postgres")
    }
    errors_json = all(a.get("json", False) for a in attempts if a["status"] and a["status"] >= 400)
    db_503 = [a for a in during if a["outage"] == "postgres" and a["status"] == 503]
    guarantees = {
        "every_accepted_item_stored_exactly_once": len(keys_expected) == args.items
        and all(stored.get(key) == 1 for key in keys_expected)
        and sum(stored.values()) == len(keys_expected),
        "every_batch_final": sum(batch_states.values()) == len(batch_ids) and set(batch_states) <= {"done", "failed"},
        "beliefs_equal_clean_run": chaos == clean,
        "no_500": not any(a["status"] and a["status"] >= 500 and a["status"] != 503 for a in attempts),
        "errors_are_json": errors_json,
        "no_request_over_10_s": max(a["elapsed_s"] for a in attempts) <= LATENCY_CEILING_S,
        "database_down_answers_503": bool(db_503) and all(a["code"] == "database_unavailable" for a in db_503),
        "no_connection_errors": not any(a["status"] is None for a in attempts),
    }
    differences = sorted(set(chaos) ^ set(clean))[:10]

    counts = {
        kind: {
            "clean_run": model.objects.filter(bank=banks["clean"]).count(),
            "under_faults": model.objects.filter(bank=banks["chaos"]).count(),
        }
        for kind, model in (("facts", Fact), ("evidence", Evidence))
    }
    print(f"erasure in tenant B during a {args.import_items:,}-item import into tenant A...", flush=True)
    erasure = erasure_during_import(stack, keys, banks, args.import_items)
    guarantees["erasure_during_import_within_10_s"] = erasure["within_10_s"]

    connection.close()
    result = {
        "machine": machine(),
        "items": args.items,
        "requests": {
            "sync": sum(1 for entry in accepted.values() if entry["mode"] == "sync"),
            "async": sum(1 for entry in accepted.values() if entry["mode"] == "async"),
            "accepted": len(accepted),
            "attempts": len(attempts),
        },
        "faults": faults,
        "task_delivery": "every task published twice (MEMORYHUB_FAULT_DUPLICATE_DELIVERY)",
        "outages": [
            {"dependency": n, "down_at": round(d, 2), "up_at": round(u, 2) if u else None}
            for n, d, u in recorder.outages
        ],
        "responses": {
            "by_status": dict(statuses),
            "during_outage": outage_statuses,
            "max_latency_s": max(a["elapsed_s"] for a in attempts),
            "max_latency_during_outage_s": max((a["elapsed_s"] for a in during), default=0.0),
            "slowest": sorted(attempts, key=lambda a: -a["elapsed_s"])[:5],
            "retries_after_503": sum(1 for a in attempts if a["status"] == 503 and a["route"].startswith("retain")),
        },
        "stored": {
            "expected_items": len(keys_expected),
            "episodes": sum(stored.values()),
            "duplicated": sum(1 for count in stored.values() if count > 1),
            "missing": len(keys_expected - set(stored)),
        },
        "batches": {"total": len(batch_ids), "by_status": dict(batch_states)},
        "beliefs": {"clean_run": len(clean), "under_faults": len(chaos), "differences": differences},
        **counts,
        "timeline_s": {"requests_done": round(requests_done, 1), "settled": round(settled_at, 1)},
        "erasure_during_import": erasure,
        "guarantees": guarantees,
        "passed": all(guarantees.values()),
    }
    path = write_result("chaos", result)
    print(f"guarantees: {guarantees}\nwrote {path}")
    raise SystemExit(0 if result["passed"] else 1)


if __name__ == "__main__":
    main()
