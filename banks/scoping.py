"""Tenant and bank scoping, done once for every API view.

``BankScopedAPIView`` resolves the bank named in the URL against the caller's
credential in ``initial()`` (after DRF has authenticated the request):

- an API key reaches the banks of its tenant, or only its own bank when it is bank-scoped;
- a person reaches the banks ``banks.permissions.banks_visible_to`` returns. A person who
  reaches banks of the same slug in several tenants names one with ``?tenant=<slug>`` (or the
  ``X-MemoryHub-Tenant`` header); without it the request is a 409 ``bank_ambiguous``, never
  a guess.

A bank the caller may not read answers 404 exactly like a bank that does not exist, so
existence never leaks across tenants.

Scopes of API keys (``banks.models.API_KEY_SCOPES``): ``read``; ``write`` (retain, import;
implies read); ``review`` (decide review items, record analyst verdicts; implies read);
``admin`` (implies all three). ``review`` is a human gate: agent keys get read and write,
and a missing scope is a 403 ``scope_required``. People are governed by their roles instead
(reviewer for ``review``). Subclasses implement ``scoped_get_queryset()``;
overriding ``get_queryset`` is refused at class creation. The one escape hatch is
``unscoped()``, which review greps for.
"""

from __future__ import annotations

from typing import Literal

from django.db.models import QuerySet
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import GenericAPIView
from rest_framework.views import APIView

from banks.models import ApiKey, Bank, Tenant
from banks.permissions import banks_visible_to, tenants_administered_by
from memoryhub.compiled import compiled_rows
from memoryhub.exceptions import BankAmbiguous, BankNotFound, ScopeRequired, TenantRequired
from memoryhub.tenancy import RequestScope, request_scope

Access = Literal["read", "review", "write", "admin"]
# What a person needs per access (API keys need the scope of the same name instead).
_PERSON_PERMISSION = {"read": "banks.view_bank", "review": "banks.review_bank", "write": "banks.change_bank"}
_REFUSED = {
    "review": "You may read this bank but not decide its reviews or record analyst verdicts (reviewer role).",
    "write": "You may read this bank but not write to it.",
    "admin": "You may read this bank but not write to it.",
}
_SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
TENANT_HEADER = "X-MemoryHub-Tenant"


def requested_tenant(request) -> str:
    """The tenant slug the caller named (``?tenant=`` or ``X-MemoryHub-Tenant``), or ``""``."""
    params = getattr(request, "query_params", None) or request.GET
    return (params.get("tenant") or request.headers.get(TENANT_HEADER) or "").strip()


def caller_api_key(request) -> ApiKey | None:
    return request.auth if isinstance(request.auth, ApiKey) else None


def banks_for_caller(request, access: Access = "read") -> QuerySet[Bank]:
    """Every bank the caller may reach with ``access``."""
    api_key = caller_api_key(request)
    if api_key is not None:
        banks = Bank.objects.filter(tenant_id=api_key.tenant_id)
        if api_key.bank_id is not None:
            banks = banks.filter(pk=api_key.bank_id)
        return banks
    return banks_visible_to(request.user, _PERSON_PERMISSION.get(access, "banks.change_bank"))


# A key's bank by slug, the lookup every API request with a key makes, compiled once (``memoryhub.compiled``) as the
# key's own lookup is. The stand-ins are no real id or slug.
_tenant_banks = compiled_rows(
    lambda tenant_id, slug: Bank.objects.filter(tenant_id=tenant_id, slug=slug),
    tenant_id=-7_340_291_118,
    slug="<bank stand-in>",
)


def _key_banks(api_key: ApiKey, slug: str) -> list[Bank]:
    """The bank ``slug`` if ``api_key`` reaches it: of the key's tenant, and the key's own bank if it has one."""
    banks = _tenant_banks(tenant_id=api_key.tenant_id, slug=slug)  # a slug names one bank of a tenant
    return [bank for bank in banks if api_key.bank_id is None or bank.pk == api_key.bank_id]


def bank_for_caller(request, slug: str, access: Access) -> Bank:
    """The bank ``slug`` if the caller may reach it with ``access``; 404 when it may not even read it.

    An API key also needs the scope (``read``, ``write``, ``review`` or ``admin``); a person
    needs the role (reviewer for ``review``) and to be a tenant admin for ``admin`` actions
    (policy changes, deleting a bank, reading its audit log). When a person reads banks of
    this slug in several tenants and named none, 409 ``bank_ambiguous``.
    """
    api_key = caller_api_key(request)
    tenant_slug = requested_tenant(request)
    if api_key is not None and not tenant_slug:
        matches = _key_banks(api_key, slug)
    else:
        visible = banks_for_caller(request, "read").filter(slug=slug)
        if tenant_slug:
            visible = visible.filter(tenant__slug=tenant_slug)
        matches = list(visible.select_related("tenant").order_by("tenant__slug")[:20])
    if not matches:
        raise BankNotFound()
    if len(matches) > 1:
        raise BankAmbiguous(extra={"tenants": [bank.tenant.slug for bank in matches]})
    bank = matches[0]
    if access != "read" and api_key is None:
        if not banks_for_caller(request, "write" if access == "admin" else access).filter(pk=bank.pk).exists():
            raise PermissionDenied(_REFUSED[access])
    require_scope(request, access)
    if access == "admin" and api_key is None:
        if not tenants_administered_by(request.user).filter(pk=bank.tenant_id).exists():
            raise PermissionDenied("Only tenant admins can do this.")
    return bank


def require_access(request, bank: Bank, access: Access) -> None:
    """403 unless the caller may also act on the already resolved ``bank`` with ``access``.

    For requests whose content decides what they need, e.g. a retain that carries analyst
    verdicts needs ``review`` on top of ``write``.
    """
    if caller_api_key(request) is None and access != "read":
        if not banks_for_caller(request, "write" if access == "admin" else access).filter(pk=bank.pk).exists():
            raise PermissionDenied(_REFUSED[access])
    require_scope(request, access)


def require_scope(request, scope: Access) -> None:
    """403 ``scope_required`` unless the caller's API key carries ``scope`` (people are governed by roles)."""
    api_key = caller_api_key(request)
    if api_key is not None and not api_key.allows(scope):
        raise ScopeRequired(f"This API key lacks the '{scope}' scope.", extra={"scope": scope})


def tenant_for_bank_creation(request, tenant_slug: str | None) -> Tenant:
    """The tenant a new bank goes to. Bank-scoped keys may not create banks."""
    return tenant_for_admin_action(request, tenant_slug, "create banks")


def tenant_for_admin_action(request, tenant_slug: str | None, action: str) -> Tenant:
    """The tenant a tenant-wide action (creating banks, erasing a subject everywhere) applies to.

    Allowed for tenant-wide API keys and tenant admins; bank-scoped keys are refused.
    """
    api_key = caller_api_key(request)
    if api_key is not None:
        if api_key.bank_id is not None:
            raise PermissionDenied(f"A bank-scoped API key cannot {action}.")
        require_scope(request, "admin")
        if tenant_slug and tenant_slug != api_key.tenant.slug:
            raise PermissionDenied("This API key belongs to another tenant.")
        return api_key.tenant
    tenants = tenants_administered_by(request.user)
    if tenant_slug:
        tenant = tenants.filter(slug=tenant_slug).first()
        if tenant is None:
            raise PermissionDenied(f"Only tenant admins can {action} in a tenant.")
        return tenant
    candidates = list(tenants[:2])
    if not candidates:
        raise PermissionDenied(f"Only tenant admins can {action}.")
    if len(candidates) > 1:
        raise TenantRequired()
    return candidates[0]


def tenants_for_caller(request) -> QuerySet[Tenant]:
    """Tenants whose tenant-level records (erasure requests) the caller may read."""
    api_key = caller_api_key(request)
    if api_key is not None:
        return Tenant.objects.filter(pk=api_key.tenant_id)
    return tenants_administered_by(request.user)


class _ForbidGetQuerysetOverride:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "get_queryset" in cls.__dict__ and not cls.__dict__.get("_defines_scoping", False):
            raise TypeError(
                f"{cls.__name__} overrides get_queryset(); implement scoped_get_queryset() so bank scoping "
                "cannot be skipped."
            )


class _RowLevelScope:
    """Runs the request in ``memoryhub.tenancy.request_scope``; the tenant is set once the caller is known."""

    _scope: RequestScope

    def dispatch(self, request, *args, **kwargs):
        with request_scope() as self._scope:
            return super().dispatch(request, *args, **kwargs)

    def scope_tenant(self, tenant_id: int) -> None:
        """From here on the request sees (and may write) only ``tenant_id``'s rows."""
        self._scope.set_tenant(tenant_id)


class BankScopedAPIView(_RowLevelScope, _ForbidGetQuerysetOverride, GenericAPIView):
    """Base for every route under ``banks/{bank_slug}/``: sets ``self.bank`` or answers 404."""

    _defines_scoping = True
    bank: Bank
    #: Per-method access; unsafe methods write unless a view says otherwise (e.g. recall is a POST that reads).
    method_access: dict[str, Access] = {}

    def required_access(self) -> Access:
        if self.request.method in self.method_access:
            return self.method_access[self.request.method]
        return "read" if self.request.method in _SAFE_METHODS else "write"

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        self.bank = bank_for_caller(request, kwargs["bank_slug"], self.required_access())
        self.scope_tenant(self.bank.tenant_id)

    def get_queryset(self):  # noqa: D102 - final; see scoped_get_queryset
        return self.scoped_get_queryset()

    def scoped_get_queryset(self) -> QuerySet:
        """Rows of ``self.bank`` this view serves; always built from ``self.bank``."""
        raise NotImplementedError


class TenantScopedAPIView(_RowLevelScope, _ForbidGetQuerysetOverride, APIView):
    """Base for tenant-level routes (banks, keys, erasure requests): no bank in the URL.

    API-key requests are scoped to the key's tenant at once; views that act for a person
    call ``scope_tenant`` once they know which tenant the action is for.
    """

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        api_key = caller_api_key(request)
        if api_key is not None:
            self.scope_tenant(api_key.tenant_id)


def unscoped(queryset: QuerySet) -> QuerySet:
    """Explicit, greppable escape hatch for the rare query that must not be bank-scoped."""
    return queryset
