"""Bank administration pages: settings and policy, members and roles, Memory Defense.

Bank admins (and tenant admins) only; each action calls the service the API calls, so
the browser and the API leave the same rows. Keys, erasure and the audit log have their own modules.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse

from audit.services import actor_of
from banks.models import BankUserObjectPermission, Membership
from banks.permissions import Role, role_from_codenames
from banks.policy import bank_policy
from banks.services.banks import bank_role_set, bank_settings_change
from banks.web.access import BankPageView
from banks.web.forms import BANK_ROLE_CHOICES, BANK_ROLES, AddBankMemberForm, BankRoleForm
from banks.web.policy_form import BankSettingsForm
from beliefs.models import DefenseRescan, Episode
from beliefs.services.defense.quarantine import episode_release_and_audit
from beliefs.services.defense.rescan import defense_rescan_start_and_audit
from memoryhub.exceptions import EpisodeNotFound

ADMIN = {"GET": Role.BANK_ADMIN, "POST": Role.BANK_ADMIN}


def _bank_redirect(name: str, view, **kwargs):
    return redirect(name, tenant_slug=view.tenant.slug, bank_slug=view.bank.slug, **kwargs)


class BankPolicyPage(BankPageView):
    """Name, description, background and the whole policy in one validated form."""

    roles = ADMIN

    def get(self, request, tenant_slug: str, bank_slug: str, form=None):
        form = form or BankSettingsForm(bank=self.bank)
        rescan = DefenseRescan.objects.filter(bank=self.bank).order_by("-created_at", "-id").first()
        return self.render(
            "banks/bank_policy.html",
            {"form": form, "stored_policy": self.bank.policy or {}, "rescan": rescan},
            status=400 if form.is_bound else 200,
        )

    def post(self, request, tenant_slug: str, bank_slug: str):
        form = BankSettingsForm(request.POST, bank=self.bank)
        if not form.is_valid():
            return self.get(request, tenant_slug, bank_slug, form=form)
        changes = form.changes()
        if not changes:
            messages.info(request, "Nothing changed.")
            return _bank_redirect("banks_web:bank-policy", self)
        change = bank_settings_change(bank=self.bank, request=request, **changes)
        messages.success(request, f"Saved: {', '.join(sorted(changes))}.")
        if change.rescan is not None:
            messages.info(
                request,
                f"Memory Defense tightened: re-scanning {change.rescan.total} stored episodes (see Memory Defense).",
            )
        return _bank_redirect("banks_web:bank-policy", self)


class BankMembersPage(BankPageView):
    """Who may reach this bank and with which role; tenant members get, change or lose a role here."""

    roles = ADMIN

    def _people(self):
        memberships = list(
            Membership.objects.filter(tenant=self.tenant).select_related("user").order_by("user__username")
        )
        granted: dict[int, set[str]] = {}
        rows = BankUserObjectPermission.objects.filter(content_object=self.bank).values_list(
            "user_id", "permission__codename"
        )
        for user_id, codename in rows:
            granted.setdefault(user_id, set()).add(codename)
        admins, holders, others = [], [], []
        for m in memberships:
            if m.role == Membership.Role.ADMIN:
                admins.append(m.user)
            elif role_from_codenames(granted.get(m.user_id, set())) > Role.NONE:
                holders.append((m.user, role_from_codenames(granted[m.user_id])))
            else:
                others.append(m.user)
        return admins, holders, others

    def get(self, request, tenant_slug: str, bank_slug: str, add_form=None):
        admins, holders, others = self._people()
        return self.render(
            "banks/bank_members.html",
            {
                "tenant_admins": admins,
                "holders": holders,
                "add_form": add_form or AddBankMemberForm(candidates=others),
                "candidates": others,
                "role_choices": [*BANK_ROLE_CHOICES, ("none", "No access")],
                "role_values": {Role.VIEWER: "viewer", Role.REVIEWER: "reviewer", Role.BANK_ADMIN: "bank_admin"},
            },
            status=400 if add_form is not None else 200,
        )

    def post(self, request, tenant_slug: str, bank_slug: str):
        if request.POST.get("action") == "add":
            _, _, others = self._people()
            form = AddBankMemberForm(request.POST, candidates=others)
            if not form.is_valid():
                return self.get(request, tenant_slug, bank_slug, add_form=form)
        else:
            form = BankRoleForm(request.POST)
            if not form.is_valid():
                raise Http404("No such member.")
        membership = Membership.objects.filter(tenant=self.tenant, user_id=form.cleaned_data["user"]).first()
        if membership is None:  # not a member of this tenant: as if the person did not exist
            raise Http404("No such member.")
        user = get_user_model().objects.get(pk=membership.user_id)
        if membership.role == Membership.Role.ADMIN:
            messages.error(request, f"{user.get_username()} is a tenant admin: bank admin of every bank already.")
        elif user.pk == request.user.pk:
            messages.error(request, "You cannot change your own role; ask another admin.")
        else:
            role = BANK_ROLES[form.cleaned_data["role"]]
            bank_role_set(bank=self.bank, user=user, role=role, actor=actor_of(request))
            done = f"now {role.label}" if role > Role.NONE else "no longer has access"
            messages.success(request, f"{user.get_username()} {done} in {self.bank.name}.")
        return _bank_redirect("banks_web:bank-members", self)


class BankDefensePage(BankPageView):
    """Memory Defense: the bank's mode, re-scans of what it stores (start one, watch it), quarantined episodes."""

    roles = ADMIN

    def get(self, request, tenant_slug: str, bank_slug: str):
        rescans = list(DefenseRescan.objects.filter(bank=self.bank).order_by("-created_at", "-id")[:20])
        running = any(r.status != DefenseRescan.Status.DONE for r in rescans)
        context = {"rescans": rescans, "running": running, "policy": bank_policy(self.bank)}
        if request.headers.get("HX-Request"):
            return self.render("banks/partials/rescans.html", context)
        flagged = (
            Episode.objects.filter(bank=self.bank, quarantine_released_at__isnull=True, echo_of__isnull=True)
            .exclude(injection_flags=[])
            .order_by("-occurred_at", "-id")
        )
        context["quarantined"] = list(flagged.only("id", "occurred_at", "source", "subject", "injection_flags")[:20])
        context["quarantined_total"] = flagged.count()
        context["episodes_url"] = reverse(
            "beliefs_web:episode-list", kwargs={"tenant_slug": tenant_slug, "bank_slug": bank_slug}
        )
        return self.render("banks/defense.html", context)

    def post(self, request, tenant_slug: str, bank_slug: str):
        if request.POST.get("action") == "release":
            episode_id = request.POST.get("episode", "")
            if not episode_id.isdigit():
                raise Http404("No such episode in this bank.")
            try:
                episode_release_and_audit(request=request, bank=self.bank, episode_id=int(episode_id))
            except EpisodeNotFound as exc:
                raise Http404("No such episode in this bank.") from exc
            messages.success(request, f"Episode {episode_id} released: its facts may now support beliefs.")
            return _bank_redirect("banks_web:bank-defense", self)
        rescan = defense_rescan_start_and_audit(request=request, bank=self.bank)
        messages.success(request, f"Re-scan {rescan.pk} started: {rescan.total} stored episodes to scan.")
        return _bank_redirect("banks_web:bank-defense", self)
