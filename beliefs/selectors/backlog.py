"""How far background work is behind, across all banks (for /metrics and the stalled-bank sweep)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily

from beliefs.models import EpisodeExtraction, Fact
from memoryhub.tenancy import rls_bypass


@dataclass(frozen=True)
class Backlog:
    unextracted_episodes: int
    unconsolidated_facts: int
    lag_seconds: float


def backlog_summary(now: datetime | None = None, bank=None) -> Backlog:
    """Counts of waiting work and the age of the oldest waiting item (0 when nothing waits); all banks or one."""
    now = now or timezone.now()
    episodes = EpisodeExtraction.objects.filter(extracted_at__isnull=True)
    facts = Fact.objects.filter(consolidated_at__isnull=True)
    if bank is not None:
        episodes, facts = episodes.filter(bank=bank), facts.filter(bank=bank)
    episode_stats = episodes.aggregate(oldest=Min("recorded_at"), count=Count("episode_id"))
    fact_stats = facts.aggregate(oldest=Min("created_at"), count=Count("id"))
    oldest = min((t for t in (episode_stats["oldest"], fact_stats["oldest"]) if t is not None), default=None)
    return Backlog(
        unextracted_episodes=episode_stats["count"],
        unconsolidated_facts=fact_stats["count"],
        lag_seconds=max(0.0, (now - oldest).total_seconds()) if oldest else 0.0,
    )


def banks_with_backlog(*, older_than: datetime) -> list[int]:
    """Ids of banks holding episodes or facts waiting since before ``older_than``."""
    episode_banks = EpisodeExtraction.objects.filter(extracted_at__isnull=True, recorded_at__lt=older_than).values_list(
        "bank_id", flat=True
    )
    fact_banks = Fact.objects.filter(consolidated_at__isnull=True, created_at__lt=older_than).values_list(
        "bank_id", flat=True
    )
    return sorted(set(episode_banks.distinct()) | set(fact_banks.distinct()))


def backlog_metrics():
    """Prometheus gauges of the backlog, read at scrape time (registered in ``BeliefsConfig.ready``)."""
    with rls_bypass():  # a cross-tenant aggregate: counts and an age, no rows leave
        summary = backlog_summary()
    lag = GaugeMetricFamily(
        "memoryhub_consolidation_lag_seconds",
        "Age of the oldest episode or fact that extraction/consolidation has not reached yet.",
    )
    lag.add_metric([], summary.lag_seconds)
    yield lag
    pending = GaugeMetricFamily("memoryhub_background_pending", "Items waiting for background work.", labels=["stage"])
    pending.add_metric(["extraction"], summary.unextracted_episodes)
    pending.add_metric(["consolidation"], summary.unconsolidated_facts)
    yield pending
