"""Workload views: the anomaly suppression log and churn plays per segment."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count
from django.utils import timezone

from banks.web.access import BankPageView
from banks.web.pagination import paginate
from beliefs.models import Play
from reviews.models import ReviewItem
from workloads.churn import segment_counts, wilson
from workloads.churn.selectors import intervention_list, intervention_states
from workloads.churn.timeline import AWAITING, IN_FLIGHT
from workloads.models import Intervention, TriageDecision


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
            "workloads/suppression_log.html",
            {
                "rows": [(r, reviews.get(r.pk)) for r in rows],
                "page_obj": page,
                "decision": decision,
                "review_counts": counts,
            },
        )


HORIZON_BUCKETS = [("within 7 days", 7), ("within 30 days", 30), ("later", None)]


class ChurnPlaysPage(BankPageView):
    """Per segment: each play's k of n retained with its Wilson interval; open interventions by horizon."""

    def get(self, request, tenant_slug: str, bank_slug: str):
        now = timezone.now()
        segments = sorted(
            Intervention.objects.filter(bank=self.bank).values_list("segment", flat=True).distinct().order_by()
        )
        table = []
        for segment in segments:
            plays = []
            for play, counts in segment_counts(bank=self.bank, segment=segment, now=now).items():
                low, high = wilson(counts.retained, counts.n)
                rate = counts.retained / counts.n if counts.n else None
                plays.append({"play": play, "counts": counts, "rate": rate, "low": low, "high": high})
            plays.sort(key=lambda p: (-p["low"], -p["counts"].n, p["play"]))
            table.append((segment, plays))
        candidates = list(
            intervention_list(bank=self.bank)
            .filter(horizon_closes_at__gt=now - timedelta(days=365))
            .only("id", "account", "segment", "play", "occurred_at", "horizon_closes_at")[:500]
        )
        states = intervention_states(bank=self.bank, interventions=candidates, now=now)
        open_rows = sorted(
            (row for row in candidates if states[row.pk][0].state in (IN_FLIGHT, AWAITING)),
            key=lambda row: row.horizon_closes_at,
        )
        buckets = {name: [] for name, _ in HORIZON_BUCKETS}
        buckets["horizon closed, awaiting the outcome"] = []
        for row in open_rows:
            if states[row.pk][0].state == AWAITING:
                buckets["horizon closed, awaiting the outcome"].append(row)
                continue
            days = (row.horizon_closes_at - now).total_seconds() / 86400
            name = next(name for name, limit in HORIZON_BUCKETS if limit is None or days < limit)
            buckets[name].append(row)
        guidance = list(Play.objects.filter(bank=self.bank).only("id", "text", "play", "segment").order_by("segment"))
        return self.render(
            "workloads/churn_plays.html",
            {"table": table, "buckets": list(buckets.items()), "open_count": len(open_rows), "guidance": guidance},
        )
