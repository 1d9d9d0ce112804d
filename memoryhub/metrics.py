"""Prometheus metrics. Served at ``/metrics`` when ``MEMORYHUB_METRICS`` allows it.

Under gunicorn, ``PROMETHEUS_MULTIPROC_DIR`` (set by ``manage.py serve``) makes every
worker process write its samples there, and the endpoint aggregates them.
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

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


def observe_recall(result) -> None:
    RECALL_LATENCY.observe(result.elapsed_ms / 1000)
    RECALL_BUDGET_UTILISATION.observe(result.tokens_used / result.budget_tokens if result.budget_tokens else 0)
    RECALL_DROPPED.inc(result.dropped_by_budget)


def observe_retain(created: int, duplicates: int) -> None:
    if created:
        RETAINED.labels(status="created").inc(created)
    if duplicates:
        RETAINED.labels(status="duplicate").inc(duplicates)


def render() -> tuple[bytes, str]:
    """The exposition text for every process (multiprocess mode) or this one."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    from prometheus_client import REGISTRY

    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
