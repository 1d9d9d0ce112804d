"""The belief browser and the belief page."""

from __future__ import annotations

from datetime import timedelta

from django.http import Http404
from django.utils import timezone

from banks.policy import bank_policy
from banks.web.access import BankPageView
from banks.web.pagination import paginate
from beliefs.engine.confidence import decay_factor
from beliefs.filtersets import BeliefBrowserFilterSet
from beliefs.models import Belief, Evidence
from beliefs.selectors.belief_page import belief_dependents, belief_evidence, belief_held_back, belief_versions
from beliefs.selectors.beliefs import belief_list
from beliefs.web.panels import page_panels
from memoryhub.charts import time_chart

SORTS = [("-confidence", "confidence"), ("-proof_count", "proofs"), ("-last_confirmed_at", "confirmed"),
         ("subject", "subject")]  # fmt: skip


class BeliefListPage(BankPageView):
    def get(self, request, tenant_slug: str, bank_slug: str):
        filterset = BeliefBrowserFilterSet(request.GET or None, queryset=belief_list(bank=self.bank))
        queryset = filterset.qs if filterset.is_bound and filterset.is_valid() else belief_list(bank=self.bank)
        page = paginate(request, queryset.only(
            "id", "statement", "subject", "status", "confidence", "proof_count", "contradiction_count",
            "last_confirmed_at",
        ))  # fmt: skip
        return self.render(
            "beliefs/belief_list.html",
            {
                "filterset": filterset,
                "beliefs": page,
                "statuses": Belief.Status.choices,
                "chosen_statuses": request.GET.getlist("status"),
                "sort": request.GET.get("sort", ""),
            },
        )


def decay_projection(bank, belief: Belief, now) -> list:
    """Confidence over the next 120 days if nothing reconfirms the belief (the bank's decay rule)."""
    if belief.status in {Belief.Status.INVALIDATED, Belief.Status.RETRACTED}:
        return []
    policy = bank_policy(bank)
    return [
        (
            now + timedelta(days=days),
            belief.base_confidence
            * decay_factor(
                last_confirmed_at=belief.last_confirmed_at,
                now=now + timedelta(days=days),
                horizon_days=policy.decay_horizon_days,
                half_life_days=policy.decay_half_life_days,
            ),
        )
        for days in range(10, 121, 10)
    ]


class BeliefDetailPage(BankPageView):
    def get(self, request, tenant_slug: str, bank_slug: str, belief_id: int):
        belief = belief_list(bank=self.bank).filter(pk=belief_id).first()
        if belief is None:
            raise Http404("No such belief in this bank.")
        evidence = belief_evidence(bank=self.bank, belief=belief)
        by_id = {e.pk: e for e in evidence}
        versions = belief_versions(bank=self.bank, belief=belief)
        timeline = [(v, [by_id[i] for i in v.evidence_ids if i in by_id]) for v in reversed(versions)]
        points = [(v.effective_at, v.new_confidence) for v in versions]
        now = timezone.now()
        if not points or points[-1][0] < now:
            points.append((now, belief.confidence))
        chart = time_chart(
            points,
            projection=decay_projection(self.bank, belief, now),
            label=f"Confidence over time: {len(versions)} versions, now {belief.confidence:.2f}",
            y_max=1.0,
            markers=[
                (v.effective_at, f"v{v.version} {v.cause}")
                for v in versions
                if v.cause in {"reviewed", "contradicted", "invalidated"}
            ],
        )
        return self.render(
            "beliefs/belief_detail.html",
            {
                "belief": belief,
                "supporting": [e for e in evidence if e.stance == Evidence.Stance.SUPPORTS],
                "contradicting": [e for e in evidence if e.stance == Evidence.Stance.CONTRADICTS],
                "timeline": timeline,
                "chart": chart,
                "dependents": belief_dependents(bank=self.bank, belief=belief),
                "held_back": belief_held_back(bank=self.bank, belief=belief),
                "panels": page_panels("belief-detail", bank=self.bank, belief=belief),
            },
        )
