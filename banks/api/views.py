"""Bank routes: list, create, get, update, forget."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from audit.services import actor_of
from banks.api.serializers import (
    ApiKeyInputSerializer,
    ApiKeyIssuedSerializer,
    ApiKeyOutputSerializer,
    BankCreateInputSerializer,
    BankOutputSerializer,
    BankUpdateInputSerializer,
)
from banks.permissions import Role
from banks.scoping import (
    BankScopedAPIView,
    TenantScopedAPIView,
    banks_for_caller,
    caller_api_key,
    tenant_for_admin_action,
    tenant_for_bank_creation,
)
from banks.selectors import api_key_by_prefix, api_keys_of, tenant_bank_get
from banks.services.api_keys import api_key_issue, api_key_revoke
from banks.services.banks import bank_create, bank_delete, bank_settings_change
from memoryhub.exceptions import ApiKeyNotFound, BankNotFound
from memoryhub.pagination import paginate, paginated_schema


class BankListCreateApi(TenantScopedAPIView):
    @extend_schema(responses=paginated_schema(BankOutputSerializer), operation_id="banks_list")
    def get(self, request):
        banks = banks_for_caller(request).select_related("tenant").order_by("slug")
        return paginate(request, self, banks, BankOutputSerializer)

    @extend_schema(
        request=BankCreateInputSerializer, responses={201: BankOutputSerializer}, operation_id="banks_create"
    )
    def post(self, request):
        data = BankCreateInputSerializer.parse(request.data)
        tenant = tenant_for_bank_creation(request, data.pop("tenant", None))
        self.scope_tenant(tenant.pk)
        user = request.user if getattr(request.user, "pk", None) else None
        bank = bank_create(tenant=tenant, created_by=user, actor=actor_of(request), **data)
        return Response(BankOutputSerializer(bank).data, status=status.HTTP_201_CREATED)


class BankDetailApi(BankScopedAPIView):
    serializer_class = BankOutputSerializer
    method_access = {"PATCH": "admin", "DELETE": "admin"}

    def scoped_get_queryset(self):
        return banks_for_caller(self.request).filter(pk=self.bank.pk)

    def get(self, request, bank_slug: str):
        return Response(BankOutputSerializer(self.bank).data)

    @extend_schema(request=BankUpdateInputSerializer, responses=BankOutputSerializer)
    def patch(self, request, bank_slug: str):
        data = BankUpdateInputSerializer.parse(request.data)
        change = bank_settings_change(bank=self.bank, actor=actor_of(request), **data)
        payload = BankOutputSerializer(change.bank).data
        for followup in change.followups:
            payload[followup.key] = followup.summary
        return Response(payload)

    @extend_schema(responses={200: dict})
    def delete(self, request, bank_slug: str):
        """Forget the whole bank: every episode, fact, belief and mental model. Returns a receipt."""
        tenant_for_admin_action(request, self.bank.tenant.slug, "delete banks")
        return Response(bank_delete(bank=self.bank, actor=actor_of(request)))


class ApiKeyListCreateApi(TenantScopedAPIView):
    """Tenant admins (or admin-scoped, tenant-wide keys) list and issue API keys.

    A key issued by a key records its parent and never exceeds it (scopes, expiry, rate limit); every key stays
    within the tenant's maximum lifetime. Refusals: 403 ``api_key_scope_not_grantable``, 400
    ``api_key_lifetime_exceeded`` or ``api_key_rate_limit_too_high``.
    """

    @extend_schema(responses=paginated_schema(ApiKeyOutputSerializer), operation_id="api_keys_list")
    def get(self, request):
        tenant = tenant_for_admin_action(request, request.query_params.get("tenant"), "manage API keys")
        self.scope_tenant(tenant.pk)
        return paginate(request, self, api_keys_of(tenant=tenant), ApiKeyOutputSerializer)

    @extend_schema(
        request=ApiKeyInputSerializer, responses={201: ApiKeyIssuedSerializer}, operation_id="api_keys_issue"
    )
    def post(self, request):
        data = ApiKeyInputSerializer.parse(request.data)
        tenant = tenant_for_admin_action(request, data.pop("tenant", None), "manage API keys")
        self.scope_tenant(tenant.pk)
        bank = None
        if data.get("bank"):
            bank = tenant_bank_get(tenant=tenant, slug=data["bank"])
            if bank is None:
                raise BankNotFound()
        user = request.user if getattr(request.user, "pk", None) else None
        parent = caller_api_key(request)
        issued = api_key_issue(
            actor=actor_of(request),
            tenant=tenant,
            name=data["name"],
            bank=bank,
            created_by=user,
            created_by_key=parent,
            # tenant_for_admin_action let only a tenant admin or a tenant-wide admin key this far
            granter_role=Role.TENANT_ADMIN if parent is None else None,
            scopes=data["scopes"],
            expires_at=data.get("expires_at"),
            rate_limit_per_minute=data.get("rate_limit_per_minute"),
        )
        payload = {**ApiKeyOutputSerializer(issued.api_key).data, "key": issued.raw_key}
        return Response(payload, status=status.HTTP_201_CREATED)


class ApiKeyDetailApi(TenantScopedAPIView):
    @extend_schema(responses={204: None}, operation_id="api_keys_revoke")
    def delete(self, request, prefix: str):
        tenant = tenant_for_admin_action(request, request.query_params.get("tenant"), "manage API keys")
        self.scope_tenant(tenant.pk)
        api_key = api_key_by_prefix(tenant=tenant, prefix=prefix)
        if api_key is None:
            raise ApiKeyNotFound()
        api_key_revoke(api_key=api_key, actor=actor_of(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
