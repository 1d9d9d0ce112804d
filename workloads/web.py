"""Workload pages: the anomaly suppression log and churn plays per segment."""

from __future__ import annotations

from django.utils import timezone

from banks.web.access import BankPageView
from banks.web.pagination import paginate
from workloads.anomaly.selectors import suppression_log, suppression_review_counts, suppression_reviews
from workloads.churn.selectors import churn_plays_overview
from workloads.models import TriageDecision


class SuppressionLogPage(BankPageView):
    """Every triage decision with its citations, and what review made of each suppression."""

    def get(self, request, tenant_slug: str, bank_slug: str):
        decision = request.GET.get("decision", "suppress")
        kind = decision if decision in TriageDecision.Decision.values else None
        page = paginate(request, suppression_log(bank=self.bank, decision=kind))
        rows = list(page)
        reviews = suppression_reviews(bank=self.bank, decisions=rows)
        return self.render(
            "workloads/suppression_log.html",
            {
                "rows": [(r, reviews.get(r.pk)) for r in rows],
                "page_obj": page,
                "decision": decision,
                "review_counts": suppression_review_counts(bank=self.bank),
            },
        )


class ChurnPlaysPage(BankPageView):
    """Per segment: each play's k of n retained with its Wilson interval; open interventions by horizon."""

    def get(self, request, tenant_slug: str, bank_slug: str):
        return self.render("workloads/churn_plays.html", churn_plays_overview(bank=self.bank, now=timezone.now()))
