"""Prometheus counters and histograms, and the ``observe_*`` calls that feed them (a leaf: imports no app).

Served at ``/metrics`` by :mod:`memoryhub.observability`. Under gunicorn,
``PROMETHEUS_MULTIPROC_DIR`` (set by ``manage.py serve``) makes every worker process
write its samples there, and the endpoint aggregates them.
"""

from __future__ import annotations

from urllib.parse import urlparse

from django.conf import settings
from prometheus_client import Counter, Histogram

RECALL_LATENCY = Histogram(
    "memoryhub_recall_latency_seconds",
    "Recall latency, end to end inside the service.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5),
)
RECALL_BUDGET_UTILISATION = Histogram(
    "memoryhub_recall_budget_utilisation_ratio",
    "tokens_used / budget_tokens per recall.",
    buckets=(0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0),
)
RECALL_DROPPED = Counter("memoryhub_recall_dropped_by_budget_total", "Candidates left out by the token budget.")
RETAINED = Counter("memoryhub_retained_episodes_total", "Episodes retained.", ["status"])
LLM_CALLS = Counter("memoryhub_llm_calls_total", "LLM calls by provider and outcome.", ["provider", "status"])
LLM_TOKENS = Counter("memoryhub_llm_tokens_total", "LLM tokens by provider and direction.", ["provider", "direction"])
LLM_LATENCY = Histogram(
    "memoryhub_llm_latency_seconds",
    "LLM call latency by provider.",
    ["provider"],
    buckets=(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
DEFENSE_FINDINGS = Counter(
    "memoryhub_defense_findings_total", "Sensitive values found at retain, by action and kind.", ["action", "kind"]
)
TASK_FAILURES = Counter("memoryhub_task_failures_total", "Celery tasks that raised, by task.", ["task"])
ERASURES = Counter("memoryhub_erasures_total", "Completed erasures (subject or bank).")
ERASED_EPISODES = Counter("memoryhub_erased_episodes_total", "Episodes removed by erasures.")
FACTS_EXTRACTED = Counter("memoryhub_facts_extracted_total", "Facts extracted from episodes.", ["extractor"])
ENQUEUE_FAILURES = Counter(
    "memoryhub_enqueue_failures_total",
    "Tasks that could not be sent (broker down); the beat sweeps re-queue them.",
    ["task"],
)
BELIEF_CHANGES = Counter("memoryhub_belief_changes_total", "Belief versions written, by cause.", ["cause"])


def observe_recall(result) -> None:
    RECALL_LATENCY.observe(result.elapsed_ms / 1000)
    RECALL_BUDGET_UTILISATION.observe(result.tokens_used / result.budget_tokens if result.budget_tokens else 0)
    RECALL_DROPPED.inc(result.dropped_by_budget)


def observe_retain(created: int, duplicates: int) -> None:
    if created:
        RETAINED.labels(status="created").inc(created)
    if duplicates:
        RETAINED.labels(status="duplicate").inc(duplicates)


def _provider() -> str:
    return urlparse(settings.MEMORYHUB["LLM_BASE_URL"]).hostname or "none"


def observe_llm_call(*, status: str, latency_ms: float, usage=None) -> None:
    provider = _provider()
    LLM_CALLS.labels(provider=provider, status=status).inc()
    LLM_LATENCY.labels(provider=provider).observe(latency_ms / 1000)
    if usage is not None:
        LLM_TOKENS.labels(provider=provider, direction="in").inc(usage.tokens_in)
        LLM_TOKENS.labels(provider=provider, direction="out").inc(usage.tokens_out)


def observe_defense(action: str, counts) -> None:
    for kind, count in counts.items():
        DEFENSE_FINDINGS.labels(action=action, kind=kind).inc(count)


def observe_erasure(episodes: int) -> None:
    ERASURES.inc()
    ERASED_EPISODES.inc(episodes)


def observe_facts(extractor: str, count: int) -> None:
    if count:
        FACTS_EXTRACTED.labels(extractor=extractor).inc(count)


def observe_belief_change(cause: str) -> None:
    BELIEF_CHANGES.labels(cause=cause).inc()


def observe_task_failure(task_name: str) -> None:
    TASK_FAILURES.labels(task=task_name).inc()


def observe_enqueue_failure(task_name: str) -> None:
    ENQUEUE_FAILURES.labels(task=task_name).inc()
