"""Tenant-level pages: where a signed-in person lands, and the overview of a tenant's banks."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from banks.models import Tenant
from banks.web.access import TenantPageView
from beliefs.selectors.overview import bank_counts, recent_activity


@login_required
def home(request):
    """The last tenant the person worked in, else their first one; people in none get an explanation."""
    tenants = Tenant.objects.filter(memberships__user=request.user).order_by("slug")
    remembered = request.session.get("tenant")
    tenant = tenants.filter(slug=remembered).first() if remembered else None
    tenant = tenant or tenants.first()
    if tenant is None:
        return render(request, "banks/no_tenant.html", status=403)
    return redirect("banks_web:tenant-home", tenant_slug=tenant.slug)


class TenantHomePage(TenantPageView):
    """Every bank of the tenant the person can reach, with its counts, backlog and pending reviews."""

    def get(self, request, tenant_slug: str):
        counts = bank_counts(banks=self.page.banks)
        cards = [(bank, self.page.bank_roles[bank.pk], counts[bank.pk]) for bank in self.page.banks]
        activity = recent_activity(tenant=self.tenant, limit=10) if self.page.is_tenant_admin else []
        return self.render("banks/tenant_home.html", {"cards": cards, "activity": activity})
