"""What the workloads add to the engine and the review queue, registered in ``WorkloadsConfig.ready``.

- review handlers: accepting a suppression with a comment is a fresh proof, overturning it
  contests the belief; an accepted lesson becomes a ``Play``; the queue shows each lesson's
  evidence and its play's scored outcomes;
- erasure reaches workload records: their free-text fields are redacted like the engine's;
- panels on engine pages: triage on the bank overview, the suppressions resting on a belief.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count

from banks.models import Bank
from beliefs.models import Episode
from beliefs.services.forget.mentions import register_mention_fields
from beliefs.web.panels import Panel, register_panel
from memoryhub.charts import Series, bar_chart
from reviews.handlers import ReviewHandler, register_review_handler
from reviews.models import ReviewItem
from workloads.anomaly import suppression_confirm, suppression_overturn
from workloads.anomaly.selectors import triage_daily
from workloads.distill import play_from_lesson
from workloads.models import AccountLink, Intervention, OutcomeEvent, TriageDecision


def lesson_support(*, bank: Bank, items: list[ReviewItem]) -> dict[int, dict]:
    """For each distillation item: the episodes it cites and the scored outcomes of its play in its segment.

    Two queries for the whole page, however many lessons it shows.
    """
    lessons = [item for item in items if item.kind == ReviewItem.Kind.DISTILLATION]
    episode_ids = {i for item in lessons for i in _ids(item.payload.get("evidence_episode_ids"))}
    episodes = {
        e.pk: e for e in Episode.objects.filter(bank=bank, pk__in=episode_ids).only("id", "content", "occurred_at")
    }
    pairs = {(item.payload.get("play"), item.payload.get("segment")) for item in lessons if item.payload.get("play")}
    outcomes: dict[tuple, dict[str, int]] = defaultdict(dict)
    if pairs:
        rows = (
            Intervention.objects.filter(bank=bank, play__in={p for p, _ in pairs}, segment__in={s for _, s in pairs})
            .values_list("play", "segment", "outcome")
            .annotate(n=Count("id"))
            .order_by()
        )
        for play, segment, outcome, n in rows:
            outcomes[(play, segment)][outcome] = n
    support = {}
    for item in lessons:
        key = (item.payload.get("play"), item.payload.get("segment"))
        stats = outcomes.get(key, {})
        support[item.pk] = {
            "episodes": [episodes[i] for i in _ids(item.payload.get("evidence_episode_ids")) if i in episodes],
            "retained": stats.get("retained", 0),
            "churned": stats.get("churned", 0),
            "pending": stats.get("pending", 0),
        }
    return support


def _ids(values) -> list[int]:
    """The database ids in a payload's id list (a stored payload may hold anything; the page must still render)."""
    if not isinstance(values, list):
        return []
    return [v for v in values if isinstance(v, int) and not isinstance(v, bool)]


def triage_panel(*, bank: Bank) -> dict:
    """The bank overview's triage card: suppressed and investigated alerts per day, 30 days."""
    triage = triage_daily(bank=bank)
    suppressed, investigated = int(triage.total("suppress")), int(triage.total("investigate"))
    chart = bar_chart(
        [Series("suppressed", triage.series["suppress"]), Series("investigated", triage.series["investigate"])],
        [day.strftime("%b %d") for day in triage.days],
        label=f"Alerts per day, 30 days: {suppressed} suppressed, {investigated} investigated",
    )
    rate = suppressed / (suppressed + investigated) if suppressed + investigated else None
    return {"suppressed": suppressed, "investigated": investigated, "suppression_rate": rate, "chart": chart}


def belief_suppressions_panel(*, bank: Bank, belief, limit: int = 10) -> dict:
    """On a belief's page: the alerts suppressed because of it."""
    suppressions = TriageDecision.objects.filter(bank=bank, belief=belief, decision=TriageDecision.Decision.SUPPRESS)
    return {"suppressions": list(suppressions.order_by("-decided_at")[:limit]), "count": suppressions.count()}


def register() -> None:
    register_review_handler(
        ReviewItem.Kind.SUPPRESSION, ReviewHandler(on_accept=suppression_confirm, on_overturn=suppression_overturn)
    )
    register_review_handler(
        ReviewItem.Kind.DISTILLATION, ReviewHandler(on_accept=play_from_lesson, support=lesson_support)
    )
    register_mention_fields(TriageDecision, ["reasons", "citations"])
    register_mention_fields(Intervention, ["account"])
    register_mention_fields(OutcomeEvent, ["account"])
    register_mention_fields(AccountLink, ["account", "related_account"])
    register_panel("bank-overview", Panel("workloads/panels/overview_triage.html", triage_panel))
    register_panel("belief-detail", Panel("workloads/panels/belief_suppressions.html", belief_suppressions_panel))
