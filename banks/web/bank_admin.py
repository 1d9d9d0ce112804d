"""Bank administration pages: settings and policy, members and roles.

Bank admins (and tenant admins) only; each action calls the service the API calls, so
the browser and the API leave the same rows. Keys have their own module; erasure and Memory Defense
pages live with the engine (``beliefs.web``), the audit log with ``audit``.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect

from audit.services import actor_of
from banks.hooks import policy_page_notes
from banks.models import Membership
from banks.permissions import Role
from banks.selectors import bank_people, tenant_member_get
from banks.services.banks import bank_role_set, bank_settings_change
from banks.web.access import BankPageView
from banks.web.forms import BANK_ROLE_CHOICES, BANK_ROLES, AddBankMemberForm, BankRoleForm
from banks.web.policy_form import BankSettingsForm

ADMIN = {"GET": Role.BANK_ADMIN, "POST": Role.BANK_ADMIN}


def _bank_redirect(name: str, view, **kwargs):
    return redirect(name, tenant_slug=view.tenant.slug, bank_slug=view.bank.slug, **kwargs)


class BankPolicyPage(BankPageView):
    """Name, description, background and the whole policy in one validated form."""

    roles = ADMIN

    def get(self, request, tenant_slug: str, bank_slug: str, form=None):
        form = form or BankSettingsForm(bank=self.bank)
        return self.render(
            "banks/bank_policy.html",
            {"form": form, "stored_policy": self.bank.policy or {}, "notes": policy_page_notes(bank=self.bank)},
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
        change = bank_settings_change(bank=self.bank, actor=actor_of(request), **changes)
        messages.success(request, f"Saved: {', '.join(sorted(changes))}.")
        for followup in change.followups:
            messages.info(request, followup.message)
        return _bank_redirect("banks_web:bank-policy", self)


class BankMembersPage(BankPageView):
    """Who may reach this bank and with which role; tenant members get, change or lose a role here."""

    roles = ADMIN

    def get(self, request, tenant_slug: str, bank_slug: str, add_form=None):
        people = bank_people(bank=self.bank)
        return self.render(
            "banks/bank_members.html",
            {
                "tenant_admins": people.admins,
                "holders": people.holders,
                "add_form": add_form or AddBankMemberForm(candidates=people.others),
                "candidates": people.others,
                "role_choices": [*BANK_ROLE_CHOICES, ("none", "No access")],
                "role_values": {Role.VIEWER: "viewer", Role.REVIEWER: "reviewer", Role.BANK_ADMIN: "bank_admin"},
            },
            status=400 if add_form is not None else 200,
        )

    def post(self, request, tenant_slug: str, bank_slug: str):
        if request.POST.get("action") == "add":
            form = AddBankMemberForm(request.POST, candidates=bank_people(bank=self.bank).others)
            if not form.is_valid():
                return self.get(request, tenant_slug, bank_slug, add_form=form)
        else:
            form = BankRoleForm(request.POST)
            if not form.is_valid():
                raise Http404("No such member.")
        membership = tenant_member_get(tenant=self.tenant, user_id=form.cleaned_data["user"])
        if membership is None:  # not a member of this tenant: as if the person did not exist
            raise Http404("No such member.")
        user = membership.user
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
