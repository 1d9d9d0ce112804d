"""Tenant administration pages: the tenant's name and banks, and its members with their tenant role.

Tenant admins only. People join by invitation: the admin gets a one-time link, shown once
in the answer to the POST that made it (never kept in the session or a cookie), and the
invitee accepts it. The page says the same thing whether or not an account of that name
exists anywhere in the installation.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse

from audit.services import actor_of
from banks.models import Membership
from banks.permissions import Role
from banks.selectors import (
    invitation_get,
    invitations_open,
    tenant_banks_overview,
    tenant_member_count,
    tenant_member_counts,
    tenant_member_get,
    tenant_members,
)
from banks.services.accounts import invitation_close, invitation_create
from banks.services.banks import (
    bank_create,
    bank_delete,
    membership_remove,
    membership_set,
    tenant_update,
)
from banks.web.access import TenantPageView
from banks.web.accounts import no_store
from banks.web.forms import (
    BankCreateForm,
    BankDeleteForm,
    InviteMemberForm,
    KeyLifetimeForm,
    TenantForm,
    TenantRoleForm,
)
from memoryhub.exceptions import BankSlugTaken

ADMIN = {"GET": Role.TENANT_ADMIN, "POST": Role.TENANT_ADMIN}


class TenantSettingsPage(TenantPageView):
    """The tenant's name, its banks (with members and keys per bank), and a new bank."""

    roles = ADMIN

    def get(self, request, tenant_slug: str, tenant_form=None, bank_form=None, delete_form=None, lifetime_form=None):
        banks = tenant_banks_overview(tenant=self.tenant)
        return self.render(
            "banks/tenant_settings.html",
            {
                "tenant_form": tenant_form or TenantForm(initial={"name": self.tenant.name}),
                "bank_form": bank_form or BankCreateForm(),
                "delete_form": delete_form or BankDeleteForm(banks=banks),
                "lifetime_form": lifetime_form
                or KeyLifetimeForm(initial={"max_api_key_lifetime_days": self.tenant.max_api_key_lifetime_days}),
                "banks": banks,
                "members": tenant_member_count(tenant=self.tenant),
            },
            status=400 if (tenant_form or bank_form or delete_form or lifetime_form) is not None else 200,
        )

    def post(self, request, tenant_slug: str):
        if request.POST.get("action") == "key-lifetime":
            form = KeyLifetimeForm(request.POST)
            if not form.is_valid():
                return self.get(request, tenant_slug, lifetime_form=form)
            days = form.cleaned_data["max_api_key_lifetime_days"]
            tenant_update(tenant=self.tenant, max_api_key_lifetime_days=days, actor=actor_of(request))
            said = f"New API keys live at most {days} days." if days else "New API keys may never expire."
            messages.success(request, said)
            return redirect("banks_web:tenant-settings", tenant_slug=tenant_slug)
        if request.POST.get("action") == "delete-bank":
            form = BankDeleteForm(request.POST, banks=self.page.banks)
            if not form.is_valid():
                return self.get(request, tenant_slug, delete_form=form)
            bank = next(b for b in self.page.banks if b.slug == form.cleaned_data["bank"])
            receipt = bank_delete(bank=bank, actor=actor_of(request))
            counts = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in receipt["removed"].items())
            messages.success(request, f"Bank {receipt['bank']} deleted with everything in it: {counts}.")
            return redirect("banks_web:tenant-settings", tenant_slug=tenant_slug)
        if request.POST.get("action") == "create-bank":
            form = BankCreateForm(request.POST)
            if not form.is_valid():
                return self.get(request, tenant_slug, bank_form=form)
            try:
                bank = bank_create(tenant=self.tenant, actor=actor_of(request), **form.cleaned_data)
            except BankSlugTaken:
                form.add_error("slug", "This tenant already has a bank with this slug.")
                return self.get(request, tenant_slug, bank_form=form)
            messages.success(request, f"Bank {bank.slug} created. Give people roles on it under Members and roles.")
            return redirect("banks_web:bank-policy", tenant_slug=tenant_slug, bank_slug=bank.slug)
        form = TenantForm(request.POST)
        if not form.is_valid():
            return self.get(request, tenant_slug, tenant_form=form)
        tenant_update(tenant=self.tenant, name=form.cleaned_data["name"], actor=actor_of(request))
        messages.success(request, "Tenant renamed.")
        return redirect("banks_web:tenant-settings", tenant_slug=tenant_slug)


class TenantMembersPage(TenantPageView):
    """Members of the tenant (make admin or member, remove) and invitations (invite, withdraw)."""

    roles = ADMIN

    def get(self, request, tenant_slug: str, add_form=None, invited=None, status: int = 200):
        counts = tenant_member_counts(tenant=self.tenant)
        rows = [
            (m, counts.banks.get(m.user_id, 0), counts.keys.get(m.user_id, 0))
            for m in tenant_members(tenant=self.tenant)
        ]
        response = self.render(
            "banks/tenant_members.html",
            {
                "rows": rows,
                "add_form": add_form or InviteMemberForm(),
                "invited": invited,
                "invitations": list(invitations_open(tenant=self.tenant)),
                "bank_total": len(self.page.banks),
            },
            status=400 if add_form is not None else status,
        )
        return no_store(response)  # the answer to an invitation carries its link once

    def post(self, request, tenant_slug: str):
        action = request.POST.get("action")
        if action == "add":
            return self._invite(request, tenant_slug)
        if action == "withdraw":
            return self._withdraw(request, tenant_slug)
        form = TenantRoleForm(request.POST)
        if action != "remove" and not form.is_valid():
            raise Http404("No such member.")
        membership = tenant_member_get(tenant=self.tenant, user_id=request.POST.get("user", ""))
        if membership is None:  # not a member here: as if the person did not exist
            raise Http404("No such member.")
        user = membership.user
        if user.pk == request.user.pk:
            messages.error(request, "You cannot change or remove your own membership; ask another tenant admin.")
        elif action == "remove":
            membership_remove(tenant=self.tenant, user=user, actor=actor_of(request))
            messages.success(request, f"{user.get_username()} removed from {self.tenant.name}, with every bank role.")
        else:
            role = Membership.Role.ADMIN if form.cleaned_data["role"] == "admin" else Membership.Role.ANALYST
            membership_set(tenant=self.tenant, user=user, role=role, actor=actor_of(request))
            what = "a tenant admin" if role == Membership.Role.ADMIN else "a member (roles per bank)"
            messages.success(request, f"{user.get_username()} is now {what}.")
        return redirect("banks_web:tenant-members", tenant_slug=tenant_slug)

    def _invite(self, request, tenant_slug: str):
        """The link is in this answer only; the same answer whoever ``invited_as`` names."""
        form = InviteMemberForm(request.POST)
        if not form.is_valid():
            return self.get(request, tenant_slug, add_form=form)
        data = form.cleaned_data
        role = Membership.Role.ADMIN if data["role"] == "admin" else Membership.Role.ANALYST
        issued = invitation_create(
            tenant=self.tenant, invited_as=data["invited_as"], role=role, created_by=request.user,
            actor=actor_of(request),
        )  # fmt: skip
        link = request.build_absolute_uri(reverse("invitation", kwargs={"token": issued.token}))
        invited = {"invited_as": issued.invitation.invited_as, "link": link, "expires_at": issued.invitation.expires_at}
        return self.get(request, tenant_slug, invited=invited)

    def _withdraw(self, request, tenant_slug: str):
        invitation = invitation_get(tenant=self.tenant, invitation_id=request.POST.get("invitation", ""))
        if invitation is None:
            raise Http404("No such invitation.")
        if invitation_close(invitation=invitation, actor=actor_of(request), action="invitation.withdrawn"):
            messages.success(request, f"Invitation for {invitation.invited_as} withdrawn: its link no longer works.")
        return redirect("banks_web:tenant-members", tenant_slug=tenant_slug)
