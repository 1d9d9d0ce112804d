"""The audit trail over the API: ``GET banks/{bank}/audit-events/`` (tenant admins and admin-scoped keys)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from audit.filtersets import AuditEventFilterSet
from audit.models import AuditEvent
from audit.selectors import audit_events
from banks.scoping import BankScopedAPIView
from memoryhub.pagination import MemoryHubPagination, paginated_schema


class AuditEventOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = AuditEvent
        fields = ["id", "actor", "action", "target", "bank_slug", "request_id", "details", "created_at"]


class AuditEventListApi(BankScopedAPIView):
    """The bank's audit trail, newest first."""

    method_access = {"GET": "admin"}
    serializer_class = AuditEventOutputSerializer
    filterset_class = AuditEventFilterSet
    pagination_class = MemoryHubPagination

    def scoped_get_queryset(self):
        return audit_events(tenant=self.bank.tenant_id, bank=self.bank)

    @extend_schema(responses=paginated_schema(AuditEventOutputSerializer))
    def get(self, request, bank_slug: str):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(AuditEventOutputSerializer(page, many=True).data)
