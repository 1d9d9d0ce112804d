"""What the dashboard's overview pages show: counts, backlog, review activity, recall budgets.

Every selector takes authorised banks and runs a fixed number of grouped queries,
whatever the number of banks or rows (the page's query count is pinned by a test).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Count, Min, Q, QuerySet
from django.db.models.functions import TruncDate
from django.utils import timezone

from audit.models import AuditEvent
from banks.models import Bank
from beliefs.models import Belief, Episode, EpisodeExtraction, Fact, MentalModel, RecallUsageDay
from reviews.models import ReviewItem


@dataclass
class BankCounts:
    episodes: int = 0
    facts: int = 0
    beliefs: int = 0
    beliefs_by_status: dict[str, int] = field(default_factory=dict)
    mental_models: int = 0
    pending_reviews: int = 0
    pending_by_kind: dict[str, int] = field(default_factory=dict)
    unextracted_episodes: int = 0
    unconsolidated_facts: int = 0
    lag_seconds: float = 0.0


def _grouped(queryset, **aggregates) -> dict[int, dict]:
    return {row.pop("bank_id"): row for row in queryset.values("bank_id").annotate(**aggregates)}


def bank_counts(*, banks: list[Bank], now: datetime | None = None) -> dict[int, BankCounts]:
    """Counts per bank for ``banks`` (one tenant's), in eight queries."""
    now = now or timezone.now()
    ids = [bank.pk for bank in banks]
    result = {pk: BankCounts() for pk in ids}
    episodes = _grouped(Episode.objects.filter(bank_id__in=ids), total=Count("id"))
    waiting = _grouped(
        EpisodeExtraction.objects.filter(bank_id__in=ids, extracted_at__isnull=True),
        waiting=Count("episode_id"),
        oldest=Min("recorded_at"),
    )
    facts = _grouped(
        Fact.objects.filter(bank_id__in=ids),
        total=Count("id"),
        waiting=Count("id", filter=Q(consolidated_at__isnull=True)),
        oldest=Min("created_at", filter=Q(consolidated_at__isnull=True)),
    )
    for pk, row in episodes.items():
        result[pk].episodes = row["total"]
    for pk, row in waiting.items():
        result[pk].unextracted_episodes = row["waiting"]
    for pk, row in facts.items():
        result[pk].facts, result[pk].unconsolidated_facts = row["total"], row["waiting"]
    for pk in ids:
        oldest = [t for t in (waiting.get(pk, {}).get("oldest"), facts.get(pk, {}).get("oldest")) if t]
        result[pk].lag_seconds = max(0.0, (now - min(oldest)).total_seconds()) if oldest else 0.0
    for pk, status, count in (
        Belief.objects.filter(bank_id__in=ids).values_list("bank_id", "status").annotate(n=Count("id")).order_by()
    ):
        result[pk].beliefs_by_status[status] = count
        result[pk].beliefs += count
    for pk, count in (
        MentalModel.objects.filter(bank_id__in=ids).values_list("bank_id").annotate(n=Count("id")).order_by()
    ):
        result[pk].mental_models = count
    pending = ReviewItem.objects.filter(bank_id__in=ids, status=ReviewItem.Status.PENDING)
    for pk, kind, count in pending.values_list("bank_id", "kind").annotate(n=Count("id")).order_by():
        result[pk].pending_by_kind[kind] = count
        result[pk].pending_reviews += count
    return result


@dataclass(frozen=True)
class DailySeries:
    """One value per day over a window, oldest first (days with nothing are zero)."""

    days: list[date]
    series: dict[str, list[float]]

    def total(self, name: str) -> float:
        return sum(self.series.get(name, []))


def days_ending(now: datetime, days: int) -> list[date]:
    """The ``days`` calendar days up to and including ``now``'s, oldest first."""
    today = now.date()
    return [today - timedelta(days=offset) for offset in range(days - 1, -1, -1)]


def daily_counts(rows: QuerySet, *, window: list[date], day_field: str, group_field: str, names) -> DailySeries:
    """Rows per calendar day of ``day_field`` in ``window``, one series per value of ``group_field`` in ``names``."""
    counts: dict[str, dict[date, int]] = defaultdict(dict)
    grouped = rows.annotate(day=TruncDate(day_field)).values_list("day", group_field).annotate(n=Count("id")).order_by()
    for day, group, count in grouped:
        counts[group][day] = count
    return DailySeries(days=window, series={name: [counts[name].get(day, 0) for day in window] for name in names})


def reviews_daily(*, bank: Bank, days: int = 30, now: datetime | None = None) -> DailySeries:
    """Review items decided per day (accepted, rejected, overturned)."""
    window = days_ending(now or timezone.now(), days)
    rows = ReviewItem.objects.filter(bank=bank, decided_at__date__gte=window[0])
    return daily_counts(rows, window=window, day_field="decided_at", group_field="status",
                        names=("accepted", "rejected", "overturned"))  # fmt: skip


def recent_activity(*, bank: Bank | None = None, tenant=None, limit: int = 12) -> list[AuditEvent]:
    """The newest audit events of a bank (or of a whole tenant)."""
    events = AuditEvent.objects.all()
    events = events.filter(bank=bank) if bank is not None else events.filter(tenant=tenant)
    return list(events.order_by("-created_at", "-id")[:limit])


@dataclass(frozen=True)
class BudgetUse:
    recalls: int
    tokens_used: int
    budget_tokens: int
    daily: DailySeries  # "utilisation" in percent per day

    @property
    def utilisation(self) -> float | None:
        return self.tokens_used / self.budget_tokens if self.budget_tokens else None


def recall_budget_use(*, bank: Bank, days: int = 30, now: datetime | None = None) -> BudgetUse:
    """Agents' recalls over the window: how many, and what share of their token budgets they filled."""
    now = now or timezone.now()
    window = days_ending(now, days)
    rows = {
        row.day: row
        for row in RecallUsageDay.objects.filter(bank=bank, day__gte=window[0]).only(
            "day", "recalls", "tokens_used", "budget_tokens"
        )
    }
    share = [100 * rows[d].tokens_used / rows[d].budget_tokens if d in rows and rows[d].budget_tokens else 0
             for d in window]  # fmt: skip
    return BudgetUse(
        recalls=sum(r.recalls for r in rows.values()),
        tokens_used=sum(r.tokens_used for r in rows.values()),
        budget_tokens=sum(r.budget_tokens for r in rows.values()),
        daily=DailySeries(days=window, series={"utilisation": share}),
    )


def bank_content_counts(*, bank: Bank) -> dict[str, int]:
    """What a bank holds, by kind (``banks.hooks`` content counter for the deletion receipt)."""
    return {
        "episodes": Episode.objects.filter(bank=bank).count(),
        "facts": Fact.objects.filter(bank=bank).count(),
        "beliefs": Belief.objects.filter(bank=bank).count(),
        "mental_models": MentalModel.objects.filter(bank=bank).count(),
    }
