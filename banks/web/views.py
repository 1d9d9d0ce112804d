"""Where a signed-in person lands: their last tenant's home page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from banks.selectors import tenants_of_user


@login_required
def home(request):
    """The last tenant the person worked in, else their first one; people in none get an explanation."""
    tenants = tenants_of_user(user=request.user)
    remembered = request.session.get("tenant")
    tenant = tenants.filter(slug=remembered).first() if remembered else None
    tenant = tenant or tenants.first()
    if tenant is None:
        return render(request, "banks/no_tenant.html", status=403)
    return redirect("beliefs_tenant:tenant-home", tenant_slug=tenant.slug)
