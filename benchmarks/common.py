"""Benchmark plumbing: a database of its own, synthetic episodes, timing helpers."""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT))


def setup_django(database: str, *, fresh: bool = False, migrate: bool = True) -> None:
    """Point Django at database ``database`` on the configured server (re-created when ``fresh``), migrated.

    ``migrate=False`` is for worker processes of a parent that migrated already: two workers migrating side by side
    race on the same catalog rows ("tuple concurrently updated") even when there is nothing to apply."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["MEMORYHUB_DB_NAME"] = database
    os.environ.setdefault("MEMORYHUB_LOG_LEVEL", "WARNING")
    os.environ.setdefault("MEMORYHUB_DB_CONNECT_AS", "maintenance")  # benchmarks read their own tables directly
    # A broker database of their own: a running `make run` worker must not take benchmark tasks (other ids, other DB).
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/14")
    import django
    from django.conf import settings

    params = dict(settings.DATABASES["default"])
    import psycopg

    with psycopg.connect(
        host=params["HOST"] or None,
        port=params["PORT"] or None,
        user=params["USER"],
        password=params["PASSWORD"] or None,
        dbname="postgres",
        autocommit=True,
    ) as conn:
        if fresh:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone():
            conn.execute(f'CREATE DATABASE "{database}"')
    django.setup()
    from django.core.management import call_command

    if migrate:
        call_command("migrate", interactive=False, verbosity=0)


HOSTS = [f"{kind}-{n:02d}" for kind in ("db", "web", "cache", "queue", "api", "batch") for n in range(1, 18)]
SERVICES = ["checkout", "billing", "search", "auth", "recommendations", "payments", "inventory", "notifications"]
SIGNATURES = [
    "DiskLatencyHigh",
    "CPUSaturation",
    "MemoryPressure",
    "ReplicaLag",
    "ErrorRateSpike",
    "QueueBacklog",
    "CertificateExpiry",
    "PodRestartLoop",
    "LatencyP99High",
    "ConnectionPoolExhausted",
]
ACCOUNTS = [
    f"{a}-{b}"
    for a in ("acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka")
    for b in ("corp", "labs", "group", "systems", "retail")
]
PLAYS = ["discount-10", "discount-20", "exec-review", "training-session", "feature-preview", "success-plan"]
TEMPLATES = [
    "Alert {sig} fired on {host}: value {val} against baseline {base} during {window}.",
    "Analyst closed {sig} on {host} as expected: {reason}.",
    "Incident INC-{inc}: {service} degraded because {cause}; mitigated after {mins} minutes.",
    "Runbook step '{step}' on {host} {outcome}.",
    "Customer {acct} flagged at risk: {signal}.",
    "Intervention: offered {acct} the {play} play through their account manager.",
    "Outcome for {acct}: {result} {days} days after the {play} play.",
    "Deploy of {service} v{major}.{minor} to {host} {deploy_outcome}.",
    "Support chat with {acct} about {topic}; the customer sounded {mood}.",
]
FILL = {
    "window": ["the nightly backup", "peak traffic", "a deploy", "month-end close", "a quiet Sunday"],
    "reason": ["backup saturates the disk", "known seasonal load", "load test by the QA team", "benign retry storm"],
    "cause": [
        "an expired TLS certificate",
        "a bad config push",
        "a saturated network link",
        "a slow DNS resolver",
        "a runaway cron job",
    ],
    "step": ["check pg_stat_activity", "inspect TLS handshakes", "compare with last deploy", "look at GC pauses"],
    "outcome": ["produced the signal", "showed nothing unusual", "found a long-running transaction"],
    "signal": ["weekly active users fell 38%", "two admins left", "support tickets tripled", "renewal call missed"],
    "result": ["renewed", "churned", "downgraded", "expanded"],
    "deploy_outcome": ["succeeded", "was rolled back", "raised the error rate", "cut latency in half"],
    "topic": ["SSO", "pricing", "data export", "API limits", "a billing error", "the mobile app"],
    "mood": ["frustrated", "happy", "neutral", "confused", "impatient"],
}


def synthetic_episode(rng: random.Random, index: int, start: datetime) -> dict:
    template = rng.choice(TEMPLATES)
    values = {
        "sig": rng.choice(SIGNATURES),
        "host": rng.choice(HOSTS),
        "service": rng.choice(SERVICES),
        "acct": rng.choice(ACCOUNTS),
        "play": rng.choice(PLAYS),
        "val": rng.randint(50, 999),
        "base": rng.randint(10, 100),
        "inc": 1000 + index,
        "mins": rng.randint(3, 240),
        "days": rng.randint(30, 120),
        "major": rng.randint(1, 9),
        "minor": rng.randint(0, 40),
        **{key: rng.choice(options) for key, options in FILL.items()},
    }
    subject = f"host:{values['host']}" if "{host}" in template else f"account:{values['acct']}"
    return {
        "content": template.format(**values),
        "occurred_at": (start + timedelta(minutes=7 * index)).isoformat(),
        "source": template.split(" ")[0].lower().strip(":"),
        "subject": subject,
    }


QUERIES = [
    "disk latency alerts on {host} during backups",
    "why did {service} degrade",
    "{acct} churn risk",
    "which plays worked for {acct}",
    "replica lag on {host}",
    "expired certificate incident",
    "deploys of {service} that were rolled back",
    "support conversations about SSO",
    "{sig} on {host}",
    "customers who renewed after a discount",
]


def synthetic_query(rng: random.Random) -> str:
    return rng.choice(QUERIES).format(
        host=rng.choice(HOSTS), service=rng.choice(SERVICES), acct=rng.choice(ACCOUNTS), sig=rng.choice(SIGNATURES)
    )


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary_ms(values_s: list[float]) -> dict:
    ms = [v * 1000 for v in values_s]
    return {
        "p50_ms": round(percentile(ms, 50), 2),
        "p95_ms": round(percentile(ms, 95), 2),
        "mean_ms": round(statistics.fmean(ms), 2),
        "n": len(ms),
    }


def machine() -> dict:
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def cpu_model() -> str:
    """The processor's name and whether it has bfloat16 instructions: the same benchmark reads differently on
    machines of the same size (retained texts are embedded in bfloat16 batches only where the CPU has them)."""
    from memoryhub.embeddings import cpu_has_bfloat16

    name = ""
    try:
        with open("/proc/cpuinfo") as info:
            name = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "")
    except OSError:
        pass
    return f"{name or platform.processor() or 'unknown'}{' (bfloat16)' if cpu_has_bfloat16() else ''}"


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def write_result(name: str, payload: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2) + "\n")
    return path


def write_labelled_result(path: Path, label: str, entry: dict) -> Path:
    """Keep ``entry`` under ``label`` in the JSON object at ``path`` (one entry per label; the others stay)."""
    results = json.loads(path.read_text()) if path.exists() else {}
    results[label] = entry
    path.write_text(json.dumps(results, indent=2) + "\n")
    return path


class Timer:
    def __enter__(self):
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.started
        return False
