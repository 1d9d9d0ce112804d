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
from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import redirect, render
from django.views import View

from audit.services import actor_of
from banks.models import Membership, Tenant
from banks.services.accounts import account_create_with_first_password
from banks.services.banks import membership_set, tenant_break_glass, tenant_create
from banks.web.accounts import no_store
from banks.web.forms import BreakGlassForm, TenantCreateForm
from memoryhub.tenancy import tenant_scope

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
        tenants = list(
            Tenant.objects.annotate(
                bank_count=Count("banks", distinct=True),
                member_count=Count("memberships", distinct=True),
                admin_count=Count("memberships", filter=Q(memberships__role=Membership.Role.ADMIN), distinct=True),
            ).order_by("slug")
        )
        mine = set(Membership.objects.filter(user=request.user).values_list("tenant_id", flat=True))
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
            with transaction.atomic():
                tenant = tenant_create(slug=data["slug"], name=data["name"], actor=actor_of(request))
                with tenant_scope(tenant.pk):
                    admin, new_password = data["existing"], None
                    if admin is None:  # a first password that passes the validators, to be changed at first sign-in
                        admin, password = account_create_with_first_password(
                            tenant=tenant, username=data["admin"].strip(), email=data["email"], actor=actor_of(request)
                        )
                        new_password = {"username": admin.get_username(), "password": password}
                    membership_set(tenant=tenant, user=admin, role=Membership.Role.ADMIN, actor=actor_of(request))
        except IntegrityError:
            form.add_error("slug", "A tenant with this slug exists.")
            return self.get(request, form=form)
        messages.success(request, f"Tenant {tenant.slug} created with {admin.get_username()} as its admin.")
        if new_password is None:
            return redirect("banks_web:staff-tenants")
        return self.get(request, new_password=new_password)

    def _break_glass(self, request):
        form = BreakGlassForm(request.POST)
        valid = form.is_valid()
        tenant_id = form.cleaned_data.get("tenant")
        tenant = Tenant.objects.filter(pk=tenant_id).first() if tenant_id is not None else None
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
