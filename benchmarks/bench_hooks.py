"""Coding-agent hook latency: the whole hook process, start to exit, as the agent waits for it.

A bank with the demo episodes (``workloads/.../demo_episodes.json``, extracted and
consolidated) in a database of its own is served by gunicorn as ``make run`` serves it (2
workers × 4 threads, the embedding model loaded before the first request). Each hook runs
as Claude Code runs it: ``mhctl hook <event>`` in a fresh process with the recorded payload on
stdin; the time is from spawning it to its exit. ``user-prompt`` and ``session-start`` are the
fast path (one recall, the fenced context on stdout); ``stop`` spools the reply and starts
the background flush. Python's own start-up and the server's recall time are measured
beside them. Run with ``mh-heavy .venv/bin/python benchmarks/bench_hooks.py``; results go to
``benchmarks/results/hooks.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, machine, setup_django, summary_ms, write_result

PAYLOADS = ROOT / "tests" / "integrations" / "hook_payloads" / "claude-code"
MHCTL = str(Path(sys.executable).parent / "mhctl")
PROMPTS = [
    "Is disk latency on db-01 during backups a known pattern?",
    "What did we decide about the checkout-api deploy?",
    "Which alerts are benign and can be suppressed?",
    "Did the discount offer keep accounts from churning?",
    "What happened with the certificate on the api gateway?",
    "Who owns the billing queue and how do we page them?",
    "Why did replica lag spike last week?",
    "What is the rollback procedure for a bad release?",
]


def build_bank(database: str) -> str:
    """The demo bank in ``database``; returns its API key."""
    os.environ["MEMORYHUB_EAGER_TASKS"] = "1"  # extraction and consolidation inline, as a worker would do them
    setup_django(database, fresh=True)
    from django.utils.dateparse import parse_datetime

    from banks.services.api_keys import api_key_issue
    from banks.services.banks import bank_create, tenant_create
    from beliefs.services.retain import RetainItem, retain
    from memoryhub.tenancy import tenant_scope

    episodes = json.loads((ROOT / "workloads" / "management" / "commands" / "demo_episodes.json").read_text())
    tenant = tenant_create(slug="demo", name="Demo")
    with tenant_scope(tenant.pk):
        bank = bank_create(tenant=tenant, slug="ops", name="Operations and customers")
        retain(bank=bank, items=[RetainItem(content=e["content"], occurred_at=parse_datetime(e["occurred_at"]),
                                            source=e["source"], subject=e["subject"], metadata=e["metadata"])
                                 for e in episodes])  # fmt: skip
        return api_key_issue(tenant=tenant, name="bench", scopes=["read", "write"]).raw_key


def serve(database: str, port: int) -> subprocess.Popen:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memoryhub.settings", "MEMORYHUB_DB_NAME": database,
           "MEMORYHUB_LOG_LEVEL": "WARNING", "REDIS_URL": "redis://127.0.0.1:6379/14"}  # fmt: skip
    env.pop("MEMORYHUB_EAGER_TASKS", None)
    env.pop("MEMORYHUB_DB_CONNECT_AS", None)  # served as production is: the request role
    command = [sys.executable, "-m", "gunicorn", "memoryhub.wsgi:application", "--bind", f"127.0.0.1:{port}",
               "--workers", "2", "--threads", "4", "--config", "python:memoryhub.gunicorn_conf"]  # fmt: skip
    web = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import httpx

    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return web
        except httpx.HTTPError:
            time.sleep(0.5)
    web.kill()
    raise SystemExit("the web server did not come up")


def run_hook(event: str, payload: str, env: dict) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run([MHCTL, "hook", event, "--tool", "claude-code", "--bank", "ops"], input=payload,
                            env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"hook {event} failed: {result.stderr}")
    return elapsed, result.stdout


def payload(event: str, **fields) -> str:
    data = json.loads(
        (PAYLOADS / f"{event}.json").read_text().replace("{{TRANSCRIPT}}", str(PAYLOADS / "transcript.jsonl"))
    )
    return json.dumps({**data, **fields})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40, help="Hook runs per event.")
    parser.add_argument("--port", type=int, default=8110)
    args = parser.parse_args()

    key = build_bank("memoryhub_bench_hooks")
    web = serve("memoryhub_bench_hooks", args.port)
    url = f"http://127.0.0.1:{args.port}"
    state = tempfile.mkdtemp(prefix="mhctl-bench-")
    env = {**os.environ, "MEMORYHUB_URL": url, "MEMORYHUB_API_KEY": key, "MHCTL_STATE_DIR": state}
    try:
        import httpx

        for prompt in PROMPTS:  # warm both gunicorn workers' model and connections
            httpx.post(f"{url}/api/v1/banks/ops/recall", json={"query": prompt, "budget_tokens": 400},
                       headers={"Authorization": f"Bearer {key}"}, timeout=30)  # fmt: skip
        server_ms = []
        for n in range(args.runs):
            answer = httpx.post(f"{url}/api/v1/banks/ops/recall", headers={"Authorization": f"Bearer {key}"},
                                json={"query": PROMPTS[n % len(PROMPTS)], "budget_tokens": 400, "render": "prompt"},
                                timeout=30).json()  # fmt: skip
            server_ms.append(answer["usage"]["elapsed_ms"] / 1000)
        python_start = [_time([sys.executable, "-c", "pass"]) for _ in range(args.runs)]
        timings, context_words = {"session-start": [], "user-prompt": [], "stop": []}, []
        for n in range(args.runs):
            # Each hook on a quiet machine, as in a session (seconds pass between turns): the spool is drained
            # and the background flush (and the retain it sends) finished before the next hook is timed.
            prompt = PROMPTS[n % len(PROMPTS)]
            elapsed, stdout = run_hook("user-prompt", payload("user_prompt", prompt=prompt), env)
            timings["user-prompt"].append(elapsed)
            context = json.loads(stdout)["hookSpecificOutput"]["additionalContext"] if stdout.strip() else ""
            context_words.append(len(context.split()))
            drain(env)
            timings["session-start"].append(run_hook("session-start", payload("session_start"), env)[0])
            timings["stop"].append(run_hook("stop", payload("stop"), env)[0])
            drain(env)
    finally:
        web.terminate()
        web.wait(timeout=30)
    result = {
        "machine": machine(),
        "bank": "demo episodes (30), extracted and consolidated; gunicorn 2 workers x 4 threads",
        "hook_end_to_end": {event: summary_ms(values) for event, values in timings.items()},
        "python_start": summary_ms(python_start),
        "server_recall": summary_ms(server_ms),
        "context_words_mean": round(sum(context_words) / len(context_words), 1),
        "empty_contexts": sum(1 for words in context_words if not words),
    }
    print(json.dumps(result, indent=2))
    write_result("hooks", result)


def drain(env: dict) -> None:
    """Send what is spooled (waiting for a background flush first), then let the server finish the retain."""
    subprocess.run([MHCTL, "hook", "flush"], env=env, check=True, capture_output=True, timeout=120)
    time.sleep(0.3)


def _time(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
