"""Workload views: the anomaly suppression log and churn plays per segment."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count
from django.utils import timezone

from banks.web.access import BankPageView
from beliefs.models import Intervention, Play, TriageDecision
from beliefs.web.pagination import paginate
from beliefs.workloads.churn import segment_effectiveness, wilson
from reviews.models import ReviewItem


class SuppressionLogPage(BankPageView):
    """Every triage decision with its citations, and what review made of each suppression."""

    def get(self, request, tenant_slug: str, bank_slug: str):
        decision = request.GET.get("decision", "suppress")
        decisions = (
            TriageDecision.objects.filter(bank=self.bank)
            .select_related("belief")
            .defer("belief__embedding", "belief__search_vector")
        )
        if decision in TriageDecision.Decision.values:
            decisions = decisions.filter(decision=decision)
        page = paginate(request, decisions.order_by("-decided_at", "-id"))
        rows = list(page)
        reviews = {
            item.triage_id: item
            for item in ReviewItem.objects.filter(bank=self.bank, triage_id__in=[r.pk for r in rows]).only(
                "id", "triage_id", "status", "comment", "decided_by", "decided_at"
            )
        }
        counts = dict(
            ReviewItem.objects.filter(bank=self.bank, kind=ReviewItem.Kind.SUPPRESSION)
            .values_list("status")
            .order_by()
            .annotate(n=Count("id"))
        )
        return self.render(
            "beliefs/suppression_log.html",
            {
                "rows": [(r, reviews.get(r.pk)) for r in rows],
                "page_obj": page,
                "decision": decision,
                "review_counts": counts,
            },
        )


HORIZON_BUCKETS = [("overdue", None, 0), ("within 7 days", 0, 7), ("within 30 days", 7, 30), ("later", 30, None)]


class ChurnPlaysPage(BankPageView):
    """Per segment: each play's k of n retained with its Wilson interval; open interventions by horizon."""

    def get(self, request, tenant_slug: str, bank_slug: str):
        now = timezone.now()
        segments = sorted(
            Intervention.objects.filter(bank=self.bank).values_list("segment", flat=True).distinct().order_by()
        )
        table = []
        for segment in segments:
            stats = segment_effectiveness(bank=self.bank, segment=segment, now=now)
            plays = []
            for play, entry in stats.items():
                low, high = wilson(entry["retained"], entry["n"])
                plays.append({"play": play, **entry, "rate": entry["retained"] / entry["n"], "low": low, "high": high})
            plays.sort(key=lambda p: (-p["low"], -p["n"], p["play"]))
            table.append((segment, plays))
        open_rows = list(
            Intervention.objects.filter(bank=self.bank, outcome=Intervention.Outcome.PENDING)
            .only("id", "account", "segment", "play", "occurred_at", "horizon_days")
            .order_by("occurred_at")
        )
        buckets = {name: [] for name, _, _ in HORIZON_BUCKETS}
        for row in open_rows:
            closes = row.occurred_at + timedelta(days=row.horizon_days)
            days = (closes - now).total_seconds() / 86400
            row.closes_at = closes
            for name, low, high in HORIZON_BUCKETS:
                if (low is None or days >= low) and (high is None or days < high):
                    buckets[name].append(row)
                    break
        guidance = list(Play.objects.filter(bank=self.bank).only("id", "text", "play", "segment").order_by("segment"))
        return self.render(
            "beliefs/churn_plays.html",
            {"table": table, "buckets": list(buckets.items()), "open_count": len(open_rows), "guidance": guidance},
        )
