"""Staff pages: every tenant of the installation, a new tenant with its first admin, and break-glass into one.

For installation operators: superusers, or staff accounts given the ``banks.manage_tenants``
permission. Django's ``is_staff`` alone is not enough (it only opens the admin site, where
per-model permissions apply); anyone else gets a 404, as if the page did not exist. The
page shows tenants, banks and members, never memory. An operator takes a role in a tenant
only by breaking glass: they give a reason, become its tenant admin, and the tenant's audit
log shows ``staff.break_glass`` with that reason.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db import IntegrityError
from django.http import Http404
from django.shortcuts import redirect, render
from django.views import View

from audit.services import actor_of
from banks.selectors import tenant_get, tenant_ids_of_user, tenants_overview
from banks.services.accounts import tenant_open
from banks.services.banks import tenant_break_glass
from banks.web.accounts import no_store
from banks.web.forms import BreakGlassForm, TenantCreateForm

MANAGE_TENANTS = "banks.manage_tenants"


def may_manage_tenants(user) -> bool:
    """Superusers, and staff accounts given ``banks.manage_tenants`` (superusers hold every permission)."""
    return bool(user.is_authenticated and user.is_active and (user.is_superuser or user.is_staff)
                and user.has_perm(MANAGE_TENANTS))  # fmt: skip


class StaffTenantsPage(View):
    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not may_manage_tenants(request.user):
            raise Http404("No such page.")
        return super().dispatch(request, *args, **kwargs)

    def get(self, request, form=None, new_password=None, glass_form=None):
        tenants = tenants_overview()
        mine = tenant_ids_of_user(user=request.user)
        response = render(
            request,
            "banks/staff_tenants.html",
            {
                "tenants": tenants,
                "mine": mine,
                "form": form or TenantCreateForm(),
                "new_password": new_password,
                "glass_form": glass_form,
            },  # fmt: skip
            status=400 if (form or glass_form) is not None else 200,
        )
        return no_store(response)  # a new admin's first password is in this answer once, and nowhere else

    def post(self, request):
        if request.POST.get("action") == "join":
            return self._break_glass(request)
        form = TenantCreateForm(request.POST)
        if not form.is_valid():
            return self.get(request, form=form)
        data = form.cleaned_data
        if data["existing"] is not None and data["existing"].pk == request.user.pk:
            form.add_error("admin", "Name someone else as the first admin; to act in a tenant yourself, break glass.")
            return self.get(request, form=form)
        try:
            opened = tenant_open(
                slug=data["slug"], name=data["name"], actor=actor_of(request),
                admin=data["existing"], admin_username=data["admin"].strip(), admin_email=data["email"],
            )  # fmt: skip
        except IntegrityError:  # taken since the form checked
            form.add_error("slug", "A tenant with this slug exists.")
            return self.get(request, form=form)
        admin = opened.admin.get_username()
        messages.success(request, f"Tenant {opened.tenant.slug} created with {admin} as its admin.")
        if opened.first_password is None:
            return redirect("banks_web:staff-tenants")
        # a new account's first password passes the validators and must be changed at first sign-in
        return self.get(request, new_password={"username": admin, "password": opened.first_password})

    def _break_glass(self, request):
        form = BreakGlassForm(request.POST)
        valid = form.is_valid()
        tenant_id = form.cleaned_data.get("tenant")
        tenant = tenant_get(tenant_id=tenant_id)
        if tenant is None:
            raise Http404("No such tenant.")
        if not valid:  # no reason, or too short: said above the tenants
            return self.get(request, glass_form=form)
        reason = form.cleaned_data["reason"]
        tenant_break_glass(tenant=tenant, user=request.user, reason=reason, actor=actor_of(request))
        messages.success(
            request, f"You are now a tenant admin of {tenant.name}: its audit log shows that you broke glass, and why."
        )
        return redirect("banks_web:tenant-settings", tenant_slug=tenant.slug)
