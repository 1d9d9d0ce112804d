"""Reads behind the erasure pages and API: the requests a tenant (or one bank) filed."""

from __future__ import annotations

from django.db.models import QuerySet

from banks.models import Bank
from beliefs.models import ErasureRequest


def erasure_request_list(*, tenants, bank: Bank | None = None, bank_id: int | None = None) -> QuerySet[ErasureRequest]:
    """Erasure requests of ``tenants`` (a tenant or a queryset of them), optionally one bank's, with their banks."""
    requests = ErasureRequest.objects.filter(**{"tenant__in" if isinstance(tenants, QuerySet) else "tenant": tenants})
    if bank is not None or bank_id is not None:
        requests = requests.filter(bank_id=bank.pk if bank is not None else bank_id)
    return requests.select_related("bank").order_by("-created_at", "-id")
