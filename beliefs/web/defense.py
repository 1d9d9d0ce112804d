"""The Memory Defense page of a bank: its mode, re-scans of what it stores, and quarantined episodes (bank admins)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse

from audit.services import actor_of
from banks.permissions import Role
from banks.policy import bank_policy
from banks.web.access import BankPageView
from beliefs.models import DefenseRescan
from beliefs.selectors.defense import defense_rescans, quarantined_episodes
from beliefs.services.defense.quarantine import episode_release
from beliefs.services.defense.rescan import defense_rescan_start
from memoryhub.exceptions import EpisodeNotFound

ADMIN = {"GET": Role.BANK_ADMIN, "POST": Role.BANK_ADMIN}


class BankDefensePage(BankPageView):
    """Memory Defense: the bank's mode, re-scans of what it stores (start one, watch it), quarantined episodes."""

    roles = ADMIN

    def get(self, request, tenant_slug: str, bank_slug: str):
        rescans = defense_rescans(bank=self.bank)
        running = any(r.status != DefenseRescan.Status.DONE for r in rescans)
        context = {"rescans": rescans, "running": running, "policy": bank_policy(self.bank)}
        if request.headers.get("HX-Request"):
            return self.render("beliefs/partials/rescans.html", context)
        flagged = quarantined_episodes(bank=self.bank)
        context["quarantined"] = list(flagged.only("id", "occurred_at", "source", "subject", "injection_flags")[:20])
        context["quarantined_total"] = flagged.count()
        context["episodes_url"] = reverse(
            "beliefs_web:episode-list", kwargs={"tenant_slug": tenant_slug, "bank_slug": bank_slug}
        )
        return self.render("beliefs/defense.html", context)

    def post(self, request, tenant_slug: str, bank_slug: str):
        if request.POST.get("action") == "release":
            episode_id = request.POST.get("episode", "")
            if not episode_id.isdigit():
                raise Http404("No such episode in this bank.")
            try:
                episode_release(bank=self.bank, episode_id=int(episode_id), actor=actor_of(request))
            except EpisodeNotFound as exc:
                raise Http404("No such episode in this bank.") from exc
            messages.success(request, f"Episode {episode_id} released: its facts may now support beliefs.")
            return redirect("beliefs_tenant:bank-defense", tenant_slug=tenant_slug, bank_slug=bank_slug)
        rescan = defense_rescan_start(bank=self.bank, actor=actor_of(request))
        messages.success(request, f"Re-scan {rescan.pk} started: {rescan.total} stored episodes to scan.")
        return redirect("beliefs_tenant:bank-defense", tenant_slug=tenant_slug, bank_slug=bank_slug)
