"""The ``/metrics`` exposition: every process's counters plus gauges read at scrape time.

Gauges that need an app's data (the background backlog) are registered by that app at
start-up with :func:`register_scrape_collector`, so the kernel never imports an app.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily

from memoryhub.queues.broker import queue_depths

_scrape_collectors: list[Callable[[], Iterable]] = []


def register_scrape_collector(collect: Callable[[], Iterable]) -> None:
    """Add ``collect`` (a callable yielding metric families) to every scrape; idempotent."""
    if collect not in _scrape_collectors:
        _scrape_collectors.append(collect)


def queue_depth_metrics():
    depth = GaugeMetricFamily(
        "memoryhub_task_queue_depth", "Messages waiting in each Celery queue (NaN: broker down).", labels=["queue"]
    )
    for queue, waiting in queue_depths().items():
        depth.add_metric([queue], waiting)
    yield depth


class _ScrapeTime:
    """Collects the registered gauges when scraped (the truth, not a cached count)."""

    def collect(self):
        for collect in (*_scrape_collectors, queue_depth_metrics):
            yield from collect()


def render() -> tuple[bytes, str]:
    """The exposition text for every process (multiprocess mode) or this one."""
    scraped = CollectorRegistry()
    scraped.register(_ScrapeTime())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry) + generate_latest(scraped), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY) + generate_latest(scraped), CONTENT_TYPE_LATEST
