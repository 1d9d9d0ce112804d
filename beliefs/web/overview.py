"""The bank overview: what the bank holds, what waits for a person, how triage and reviews went lately."""

from __future__ import annotations

from banks.web.access import BankPageView
from beliefs.selectors.overview import bank_counts, recall_budget_use, recent_activity, reviews_daily, triage_daily
from memoryhub.charts import Series, bar_chart
from reviews.models import ReviewItem


class BankOverviewPage(BankPageView):
    def get(self, request, tenant_slug: str, bank_slug: str):
        counts = bank_counts(banks=[self.bank])[self.bank.pk]
        triage = triage_daily(bank=self.bank)
        reviews = reviews_daily(bank=self.bank)
        labels = [day.strftime("%b %d") for day in triage.days]
        suppressed, investigated = triage.total("suppress"), triage.total("investigate")
        decided = sum(reviews.total(name) for name in reviews.series)
        budget = recall_budget_use(bank=self.bank)
        attention = list(
            ReviewItem.objects.filter(bank=self.bank, status=ReviewItem.Status.PENDING)
            .only("id", "kind", "title", "created_at")
            .order_by("-created_at", "-id")[:5]
        )
        return self.render(
            "beliefs/bank_overview.html",
            {
                "counts": counts,
                "attention": attention,
                "activity": recent_activity(bank=self.bank),
                "suppressed": int(suppressed),
                "investigated": int(investigated),
                "suppression_rate": suppressed / (suppressed + investigated) if suppressed + investigated else None,
                "triage_chart": bar_chart(
                    [
                        Series("suppressed", triage.series["suppress"]),
                        Series("investigated", triage.series["investigate"]),
                    ],
                    labels,
                    label=f"Alerts per day, 30 days: {int(suppressed)} suppressed, {int(investigated)} investigated",
                ),
                "budget": budget,
                "budget_chart": bar_chart(
                    [Series("budget used (%)", budget.daily.series["utilisation"])],
                    labels,
                    label=f"Recall budget used per day, last 30 days: {budget.recalls} recalls",
                    y_max=100,
                ),
                "decided": int(decided),
                "review_chart": bar_chart(
                    [Series(name, reviews.series[name]) for name in ("accepted", "rejected", "overturned")],
                    labels,
                    label=f"Review decisions per day, last 30 days: {int(decided)} in all",
                ),
            },
        )
