"""API key pages: a bank's keys (bank admins) and the tenant's keys (tenant admins).

A new key's secret is shown exactly once: in the answer to the POST that issues it
(``Cache-Control: no-store``), never kept in the session or a cookie. Only its digest is stored.

The form offers what the issuer may grant: a bank admin gives ``read``, ``write`` and
``review`` (``admin`` opens tenant-admin powers such as export and the audit API), a tenant admin any
scope; expiries stay within the tenant's maximum key lifetime.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect

from audit.services import actor_of
from banks.permissions import Role
from banks.selectors import api_key_by_prefix, api_keys_of
from banks.services.api_keys import (
    api_key_issue,
    api_key_max_rate_limit,
    api_key_revoke,
    grantable_scopes,
)
from banks.web.access import BankPageView, TenantPageView
from banks.web.forms import ApiKeyForm


class _ApiKeyPage:
    """Shared by the bank and tenant pages; subclasses say which keys they list and where a new key goes."""

    template = "banks/api_keys.html"

    #: The bank whose keys the page lists, or ``None`` for every key of the tenant.
    keys_bank = None

    def make_form(self, data=None) -> ApiKeyForm:
        return ApiKeyForm(data, **self.form_bounds())

    def form_bounds(self) -> dict:
        """What the issuer may put on a key: their role's scopes, the tenant's longest lifetime, the rate cap."""
        return {
            "scopes": grantable_scopes(granter_role=self.role),
            "max_lifetime_days": self.tenant.max_api_key_lifetime_days,
            "max_rate_limit": api_key_max_rate_limit(),
        }

    def bank_for(self, form: ApiKeyForm):
        raise NotImplementedError

    def back(self):
        raise NotImplementedError

    def get(self, request, form=None, issued=None, **kwargs):
        keys = list(api_keys_of(tenant=self.tenant, bank=self.keys_bank))
        response = self.render(
            self.template,
            {"form": form or self.make_form(), "keys": keys, "issued": issued, "bank_page": self.is_bank_page},
            status=400 if form is not None else 200,
        )
        response["Cache-Control"] = "no-store"  # the page may carry a secret once
        return response

    def post(self, request, **kwargs):
        if request.POST.get("action") == "revoke":
            prefix = request.POST.get("prefix", "")
            api_key = api_key_by_prefix(tenant=self.tenant, bank=self.keys_bank, prefix=prefix)
            if api_key is None:
                raise Http404("No such API key here.")
            api_key_revoke(api_key=api_key, actor=actor_of(request))
            messages.success(request, f"Key {api_key.name} ({api_key.prefix}) revoked: it no longer authenticates.")
            return self.back()
        form = self.make_form(request.POST)
        if not form.is_valid():
            return self.get(request, form=form)
        data = form.cleaned_data
        issued = api_key_issue(
            actor=actor_of(request),
            tenant=self.tenant,
            bank=self.bank_for(form),
            name=data["name"],
            created_by=request.user,
            granter_role=self.role,
            scopes=data["scopes"],
            expires_at=data["expires_at"],
            rate_limit_per_minute=data["rate_limit_per_minute"],
        )
        shown = {"prefix": issued.api_key.prefix, "name": issued.api_key.name, "key": issued.raw_key}
        return self.get(request, issued=shown)


class BankApiKeysPage(_ApiKeyPage, BankPageView):
    """Keys limited to this bank."""

    roles = {"GET": Role.BANK_ADMIN, "POST": Role.BANK_ADMIN}
    is_bank_page = True

    @property
    def keys_bank(self):
        return self.bank

    def bank_for(self, form):
        return self.bank

    def back(self):
        return redirect("banks_web:bank-api-keys", tenant_slug=self.tenant.slug, bank_slug=self.bank.slug)


class TenantApiKeysPage(_ApiKeyPage, TenantPageView):
    """Every key of the tenant: tenant-wide ones and those limited to one bank."""

    roles = {"GET": Role.TENANT_ADMIN, "POST": Role.TENANT_ADMIN}
    is_bank_page = False

    def make_form(self, data=None) -> ApiKeyForm:
        return ApiKeyForm(data, banks=self.page.banks, **self.form_bounds())

    def bank_for(self, form):
        slug = form.cleaned_data.get("bank")
        return next((b for b in self.page.banks if b.slug == slug), None) if slug else None

    def back(self):
        return redirect("banks_web:tenant-api-keys", tenant_slug=self.tenant.slug)
