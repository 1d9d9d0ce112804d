"""The one permission path for dashboard pages.

Every page is a subclass of ``TenantPageView`` (tenant-level pages) or ``BankPageView``
(pages under ``/t/<tenant>/banks/<bank>/``). Before the handler runs, ``dispatch``:

1. sends anonymous visitors to the sign-in page;
2. resolves the tenant among the user's memberships and, for bank pages, the bank among
   the banks the user may read — anything else is a 404, exactly like a slug that does
   not exist, so another tenant's objects never confirm their existence;
3. checks the role the HTTP method needs (``roles``; reads need viewer, any other method
   bank admin unless the view says otherwise) and answers the 403 page when it is missing;
4. runs the handler in one transaction scoped to the tenant for row-level security and
   renders the page inside it.

Handlers then read ``self.tenant``, ``self.bank``, ``self.role`` and call the same
selectors and services as the API. Objects are always looked up through the bank
(``selector(bank=self.bank, ...)``), so a foreign id is a 404 too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import render
from django.template.response import TemplateResponse
from django.views import View

from banks.models import Bank, Membership, Tenant
from banks.permissions import Role, bank_roles
from banks.web.nav import bank_badges, navigation
from memoryhub.tenancy import request_scope

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


@dataclass
class Page:
    """What the base layout needs to know about the current page (set as ``request.page``)."""

    tenant: Tenant
    tenant_role: Role
    bank_roles: dict[int, Role]
    bank: Bank | None = None
    role: Role = Role.NONE
    banks: list[Bank] = field(default_factory=list)
    tenants: list[Tenant] = field(default_factory=list)

    # Template helpers: does the user hold at least this role on the current bank (or tenant)?
    @property
    def is_reviewer(self) -> bool:
        return self.role >= Role.REVIEWER

    @property
    def is_bank_admin(self) -> bool:
        return self.role >= Role.BANK_ADMIN

    @property
    def is_tenant_admin(self) -> bool:
        return self.tenant_role >= Role.TENANT_ADMIN


def membership_for(user, tenant_slug: str) -> Membership:
    """The user's membership of ``tenant_slug``; 404 when there is none (or no such tenant)."""
    membership = Membership.objects.select_related("tenant").filter(user=user, tenant__slug=tenant_slug).first()
    if membership is None:
        raise Http404("No such tenant.")
    return membership


class TenantPageView(View):
    """Base for pages of one tenant (``/t/<tenant_slug>/...``); members only."""

    #: Role needed per HTTP method; tenant pages: any member reads, other methods need a tenant admin.
    roles: dict[str, Role] = {}
    default_read_role = Role.VIEWER
    default_write_role = Role.TENANT_ADMIN
    page: Page
    tenant: Tenant
    role: Role

    def required_role(self, method: str) -> Role:
        if method in self.roles:
            return self.roles[method]
        return self.default_read_role if method in SAFE_METHODS else self.default_write_role

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        self.page = self.resolve_page(request, **kwargs)
        self.tenant, self.role = self.page.tenant, self.page.role
        request.page = self.page
        if request.session.get("tenant") != self.tenant.slug:
            request.session["tenant"] = self.tenant.slug  # where "/" leads next time
        if self.role < self.required_role(request.method):
            raise PermissionDenied(f"This needs the {self.required_role(request.method).label} role.")
        return self._scoped_dispatch(request, *args, **kwargs)

    def resolve_page(self, request, *, tenant_slug: str, **kwargs) -> Page:
        membership = membership_for(request.user, tenant_slug)
        tenant = membership.tenant
        roles = bank_roles(request.user, tenant, membership=membership)
        tenant_role = Role.TENANT_ADMIN if membership.role == Membership.Role.ADMIN else Role.VIEWER
        banks = list(Bank.objects.filter(tenant=tenant, pk__in=list(roles)).order_by("slug"))
        tenants = list(Tenant.objects.filter(memberships__user=request.user).order_by("slug"))
        return Page(
            tenant=tenant, tenant_role=tenant_role, bank_roles=roles, role=tenant_role, banks=banks, tenants=tenants
        )

    def _scoped_dispatch(self, request, *args, **kwargs):
        """The handler in one transaction that sees only this tenant's rows; the page is rendered inside it."""
        with request_scope(self.tenant.pk):
            response = super().dispatch(request, *args, **kwargs)
            if isinstance(response, TemplateResponse):
                response.render()
            return response

    def nav_badges(self) -> dict[str, int]:
        return {}

    def render(self, template: str, context: dict | None = None, status: int = 200):
        """Render now (inside the scoped transaction), never lazily after it closed.

        An htmx request (``HX-Request``) gets the same template; partial templates are
        rendered by views that serve them, from ``templates/<app>/partials/``.
        """
        nav = navigation(self.page, self.request.path, self.nav_badges())
        return render(self.request, template, {"page": self.page, "nav": nav, **(context or {})}, status=status)


class BankPageView(TenantPageView):
    """Base for pages of one bank (``/t/<tenant_slug>/banks/<bank_slug>/...``).

    Reads need viewer; any other method needs bank admin unless ``roles`` says otherwise
    (the review queue sets ``{"POST": Role.REVIEWER}``).
    """

    default_write_role = Role.BANK_ADMIN
    bank: Bank

    def nav_badges(self) -> dict[str, int]:
        return bank_badges(self.bank)

    def resolve_page(self, request, *, tenant_slug: str, bank_slug: str, **kwargs) -> Page:
        page = super().resolve_page(request, tenant_slug=tenant_slug)
        bank = next((b for b in page.banks if b.slug == bank_slug), None)
        if bank is None:
            raise Http404("No such bank.")
        bank.tenant = page.tenant
        page.bank, page.role = bank, page.bank_roles[bank.pk]
        self.bank = bank
        return page
