"""Staff pages: every tenant of the installation, a new tenant with its first admin, joining one to manage it.

For people with Django's ``is_staff`` (operators of the installation); anyone else gets a
404, as if the page did not exist. Staff see tenants, banks and members — never memory:
to open a tenant's pages they join it as tenant admin, which is audited in that tenant.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import redirect, render
from django.views import View

from audit.services import actor_of, audit_record
from banks.models import Membership, Tenant
from banks.services.accounts import account_create_with_first_password
from banks.services.banks import membership_set, tenant_create
from banks.web.accounts import no_store
from banks.web.forms import TenantCreateForm
from memoryhub.tenancy import tenant_scope


class StaffTenantsPage(View):
    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            raise Http404("No such page.")
        return super().dispatch(request, *args, **kwargs)

    def get(self, request, form=None, new_password=None):
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
            {"tenants": tenants, "mine": mine, "form": form or TenantCreateForm(), "new_password": new_password},
            status=400 if form is not None else 200,
        )
        return no_store(response)  # a new admin's first password is in this answer once, and nowhere else

    def post(self, request):
        if request.POST.get("action") == "join":
            tenant = Tenant.objects.filter(pk=request.POST.get("tenant") or 0).first()
            if tenant is None:
                raise Http404("No such tenant.")
            with transaction.atomic(), tenant_scope(tenant.pk):
                membership_set(tenant=tenant, user=request.user, role=Membership.Role.ADMIN, actor=actor_of(request))
            messages.success(request, f"You are now a tenant admin of {tenant.name} (recorded in its audit log).")
            return redirect("banks_web:tenant-settings", tenant_slug=tenant.slug)
        form = TenantCreateForm(request.POST)
        if not form.is_valid():
            return self.get(request, form=form)
        data = form.cleaned_data
        try:
            with transaction.atomic():
                tenant = tenant_create(slug=data["slug"], name=data["name"])
                with tenant_scope(tenant.pk):
                    target = f"tenant:{tenant.slug}"
                    audit_record(request=request, tenant=tenant, action="tenant.created", target=target)
                    admin, new_password = data["existing"], None
                    if admin is None:  # a first password that passes the validators, to be changed at first sign-in
                        admin, password = account_create_with_first_password(
                            username=data["admin"].strip(), email=data["email"]
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
