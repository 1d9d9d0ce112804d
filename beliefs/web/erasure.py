"""Erasure request pages: a bank's (bank admins) and the tenant's, which also erases across every bank.

Filing calls ``erasure_request_create``, as ``POST erasure-requests/`` does; the
erasure worker runs the request, and its page polls until the receipt (kinds and counts,
never content) is there.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse

from audit.services import actor_of
from banks.permissions import Role
from banks.web.access import BankPageView, TenantPageView
from beliefs.selectors.erasure import erasure_request_list
from beliefs.services.forget.subjects import erasure_request_create
from beliefs.web.forms import ErasureForm

RECEIPT_LABELS = {
    "episodes": "Episodes deleted",
    "episodes_deleted": "Episodes deleted",
    "episodes_redacted": "Episodes of other subjects redacted",
    "facts": "Facts deleted",
    "evidence": "Evidence quotes deleted",
    "entity_links": "Entity links deleted",
    "queued_items": "Queued retain items dropped",
    "beliefs_reassessed": "Beliefs re-assessed",
    "beliefs_retracted_and_scrubbed": "Beliefs retracted and their wording erased",
    "mental_models": "Mental models rebuilt",
    "beliefs": "Beliefs rebuilt",
}


def receipt_rows(receipt: dict) -> list[tuple[str, str, int]]:
    """``[(group, label, count)]`` for every count in a receipt, whatever kinds it lists."""
    rows = []
    for group in ("removed", "redacted", "rebuilt"):
        for kind, count in sorted((receipt.get(group) or {}).items()):
            if isinstance(count, int):
                rows.append((group, RECEIPT_LABELS.get(kind, kind.replace("_", " ").capitalize()), count))
    if "episodes_redacted" in receipt and not receipt.get("redacted"):
        rows.append(("redacted", RECEIPT_LABELS["episodes_redacted"], receipt["episodes_redacted"]))
    return rows


class _ErasurePages:
    """What the bank and tenant erasure pages share; subclasses say which requests they see and file."""

    def requests(self):
        raise NotImplementedError

    def url(self, name: str, **kwargs) -> str:
        raise NotImplementedError

    def context(self) -> dict:
        return {"list_url": self.url("erasure"), "tenant_scope": self.is_tenant_page}


class _ErasureList(_ErasurePages):
    def get(self, request, form=None, **kwargs):
        erasures = list(self.requests().select_related("bank").order_by("-created_at", "-id")[:100])
        for erasure in erasures:
            erasure.url = self.url("erasure-detail", request_id=erasure.pk)
        return self.render(
            "beliefs/erasure_list.html",
            {**self.context(), "form": form or self.make_form(), "erasures": erasures},
            status=400 if form is not None else 200,
        )

    def make_form(self, data=None) -> ErasureForm:
        return ErasureForm(data, banks=self.page.banks if self.is_tenant_page else None)

    def post(self, request, **kwargs):
        form = self.make_form(request.POST)
        if not form.is_valid():
            return self.get(request, form=form)
        erasure = erasure_request_create(
            tenant=self.tenant,
            bank=self.bank_for(form),
            subject=form.cleaned_data["subject"].strip(),
            aliases=form.cleaned_data["aliases"],
            actor=actor_of(request),
        )
        messages.success(request, f"Erasure request {erasure.pk} filed; the erasure worker runs it now.")
        return redirect(self.url("erasure-detail", request_id=erasure.pk))


class _ErasureDetail(_ErasurePages):
    def get(self, request, request_id: int, **kwargs):
        erasure = self.requests().filter(pk=request_id).first()
        if erasure is None:
            raise Http404("No such erasure request here.")
        context = {**self.context(), "erasure": erasure, "receipt": receipt_rows(erasure.receipt),
                   "poll_url": self.url("erasure-detail", request_id=erasure.pk)}  # fmt: skip
        if request.headers.get("HX-Request"):
            return self.render("beliefs/partials/erasure_status.html", context)
        return self.render("beliefs/erasure_detail.html", context)


class _BankScope:
    roles = {"GET": Role.BANK_ADMIN, "POST": Role.BANK_ADMIN}
    is_tenant_page = False

    def requests(self):
        return erasure_request_list(tenants=self.tenant, bank=self.bank)

    def bank_for(self, form):
        return self.bank

    def url(self, name: str, **kwargs) -> str:
        kwargs = {"tenant_slug": self.tenant.slug, "bank_slug": self.bank.slug, **kwargs}
        return reverse(f"beliefs_tenant:bank-{name}", kwargs=kwargs)


class _TenantScope:
    roles = {"GET": Role.TENANT_ADMIN, "POST": Role.TENANT_ADMIN}
    is_tenant_page = True

    def requests(self):
        return erasure_request_list(tenants=self.tenant)

    def bank_for(self, form):
        slug = form.cleaned_data.get("bank")
        return next((b for b in self.page.banks if b.slug == slug), None) if slug else None

    def url(self, name: str, **kwargs) -> str:
        return reverse(f"beliefs_tenant:tenant-{name}", kwargs={"tenant_slug": self.tenant.slug, **kwargs})


class BankErasurePage(_BankScope, _ErasureList, BankPageView):
    """This bank's erasure requests; file one for this bank."""


class BankErasureDetailPage(_BankScope, _ErasureDetail, BankPageView):
    """One request of this bank: progress while it runs (the page polls), then its receipt."""


class TenantErasurePage(_TenantScope, _ErasureList, TenantPageView):
    """Every erasure request of the tenant; file one for every bank at once, or for one bank."""


class TenantErasureDetailPage(_TenantScope, _ErasureDetail, TenantPageView):
    """One request of the tenant, whatever its scope."""
