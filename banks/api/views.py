"""Bank routes: list, create, get, update, forget."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from banks.api.serializers import BankCreateInputSerializer, BankOutputSerializer, BankUpdateInputSerializer
from banks.scoping import (
    BankScopedAPIView,
    TenantScopedAPIView,
    banks_for_caller,
    tenant_for_admin_action,
    tenant_for_bank_creation,
)
from banks.services.banks import bank_create, bank_update
from memoryhub.pagination import paginate


class BankListCreateApi(TenantScopedAPIView):
    @extend_schema(responses=BankOutputSerializer(many=True), operation_id="banks_list")
    def get(self, request):
        banks = banks_for_caller(request).select_related("tenant").order_by("slug")
        return paginate(request, self, banks, BankOutputSerializer)

    @extend_schema(
        request=BankCreateInputSerializer, responses={201: BankOutputSerializer}, operation_id="banks_create"
    )
    def post(self, request):
        data = BankCreateInputSerializer.parse(request.data)
        tenant = tenant_for_bank_creation(request, data.pop("tenant", None))
        user = request.user if getattr(request.user, "pk", None) else None
        bank = bank_create(tenant=tenant, created_by=user, **data)
        return Response(BankOutputSerializer(bank).data, status=status.HTTP_201_CREATED)


class BankDetailApi(BankScopedAPIView):
    serializer_class = BankOutputSerializer

    def scoped_get_queryset(self):
        return banks_for_caller(self.request).filter(pk=self.bank.pk)

    def get(self, request, bank_slug: str):
        return Response(BankOutputSerializer(self.bank).data)

    @extend_schema(request=BankUpdateInputSerializer, responses=BankOutputSerializer)
    def patch(self, request, bank_slug: str):
        data = BankUpdateInputSerializer.parse(request.data)
        return Response(BankOutputSerializer(bank_update(bank=self.bank, **data)).data)

    @extend_schema(responses={200: dict})
    def delete(self, request, bank_slug: str):
        """Forget the whole bank: every episode, fact, belief and mental model. Returns a receipt."""
        from beliefs.api.erasure_views import requester
        from beliefs.services.forget import bank_forget

        tenant_for_admin_action(request, self.bank.tenant.slug, "delete banks")
        return Response(bank_forget(bank=self.bank, requested_by=requester(request)))
