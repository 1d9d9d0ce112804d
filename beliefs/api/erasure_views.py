"""Erasure requests (tenant level) and whole-bank forget."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from audit.services import actor_of
from banks.scoping import (
    TenantScopedAPIView,
    bank_for_caller,
    caller_api_key,
    tenant_for_admin_action,
    tenants_for_caller,
)
from beliefs.models import ErasureRequest
from beliefs.selectors.erasure import erasure_request_list
from beliefs.services.forget.subjects import erasure_request_create
from memoryhub.exceptions import ErasureRequestNotFound
from memoryhub.pagination import paginate, paginated_schema
from memoryhub.serializers import StrictInputSerializer


class ErasureRequestInputSerializer(StrictInputSerializer):
    subject = serializers.CharField(
        max_length=255,
        help_text="The episodes' `subject` to erase, compared after case and Unicode folding and whitespace "
        "normalisation; it leaves a tombstone that keeps every spelling of it out.",
    )
    aliases = serializers.ListField(
        child=serializers.CharField(max_length=255),
        required=False,
        max_length=20,
        help_text="Other names and identifiers of the subject (e-mail, phone, account id), each with at least 4 "
        "letters or digits (`erasure_alias_too_short` otherwise): episodes filed under them are erased and "
        "tombstoned like the subject's, their mentions in other subjects' episodes are redacted in place to "
        "`[erased]`, and what was derived from them rebuilt.",
    )
    bank = serializers.CharField(required=False, max_length=63, help_text="Bank slug; omit to erase tenant-wide.")
    tenant = serializers.CharField(required=False, max_length=63, help_text="Tenant slug (people in several tenants).")


class ErasureRequestOutputSerializer(serializers.ModelSerializer):
    bank = serializers.CharField(source="bank.slug", default=None, read_only=True, allow_null=True)

    class Meta:
        model = ErasureRequest
        fields = ["id", "scope", "bank", "status", "receipt", "requested_by", "created_at", "finished_at"]


def _visible(request):
    """The erasure requests the caller may read: its tenants', or one bank's for a bank-scoped key."""
    api_key = caller_api_key(request)
    return erasure_request_list(tenants=tenants_for_caller(request), bank_id=api_key.bank_id if api_key else None)


class ErasureRequestListCreateApi(TenantScopedAPIView):
    @extend_schema(responses=paginated_schema(ErasureRequestOutputSerializer), operation_id="erasure_requests_list")
    def get(self, request):
        tenant = tenant_for_admin_action(request, request.query_params.get("tenant"), "read erasure requests")
        self.scope_tenant(tenant.pk)
        return paginate(request, self, _visible(request).filter(tenant=tenant), ErasureRequestOutputSerializer)

    @extend_schema(
        request=ErasureRequestInputSerializer,
        responses={202: ErasureRequestOutputSerializer},
        operation_id="erasure_requests_create",
    )
    def post(self, request):
        data = ErasureRequestInputSerializer.parse(request.data)
        if data.get("bank"):
            bank = bank_for_caller(request, data["bank"], "admin")
            tenant = bank.tenant
        else:
            bank, tenant = None, tenant_for_admin_action(request, data.get("tenant"), "erase across a tenant")
        self.scope_tenant(tenant.pk)
        erasure = erasure_request_create(
            tenant=tenant, bank=bank, subject=data["subject"], aliases=data.get("aliases", []), actor=actor_of(request)
        )
        return Response(ErasureRequestOutputSerializer(erasure).data, status=status.HTTP_202_ACCEPTED)


class ErasureRequestDetailApi(TenantScopedAPIView):
    @extend_schema(responses=ErasureRequestOutputSerializer, operation_id="erasure_requests_get")
    def get(self, request, request_id: int):
        api_key = caller_api_key(request)
        if api_key is None:
            tenant = tenant_for_admin_action(request, request.query_params.get("tenant"), "read erasure requests")
            self.scope_tenant(tenant.pk)
        erasure = _visible(request).filter(pk=request_id).first()
        if erasure is None:
            raise ErasureRequestNotFound()
        return Response(ErasureRequestOutputSerializer(erasure).data)
