"""The bank overview: what the bank holds, what waits for a person, how reviews (and, as panels, the workloads)
went lately."""

from __future__ import annotations

from banks.web.access import BankPageView, TenantPageView
from beliefs.selectors.overview import bank_counts, recall_budget_use, recent_activity, reviews_daily
from beliefs.web.panels import page_panels
from memoryhub.charts import Series, bar_chart
from reviews.selectors import newest_pending


class BankOverviewPage(BankPageView):
    def get(self, request, tenant_slug: str, bank_slug: str):
        counts = bank_counts(banks=[self.bank])[self.bank.pk]
        reviews = reviews_daily(bank=self.bank)
        labels = [day.strftime("%b %d") for day in reviews.days]
        decided = sum(reviews.total(name) for name in reviews.series)
        budget = recall_budget_use(bank=self.bank)
        attention = newest_pending(bank=self.bank, limit=5)
        return self.render(
            "beliefs/bank_overview.html",
            {
                "counts": counts,
                "attention": attention,
                "activity": recent_activity(bank=self.bank),
                "panels": page_panels("bank-overview", bank=self.bank),
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


class TenantHomePage(TenantPageView):
    """Every bank of the tenant the person can reach, with its counts, backlog and pending reviews."""

    def get(self, request, tenant_slug: str):
        counts = bank_counts(banks=self.page.banks)
        cards = [(bank, self.page.bank_roles[bank.pk], counts[bank.pk]) for bank in self.page.banks]
        activity = recent_activity(tenant=self.tenant, limit=10) if self.page.is_tenant_admin else []
        return self.render("beliefs/tenant_home.html", {"cards": cards, "activity": activity})
