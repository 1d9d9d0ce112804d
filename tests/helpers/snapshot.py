"""What a bank holds, row by row, to prove that a refused request changed nothing."""

from __future__ import annotations

from django.apps import apps

from banks.models import Bank


def _plain(value):
    return value.tolist() if hasattr(value, "tolist") else value  # pgvector columns arrive as numpy arrays


def bank_snapshot(bank: Bank) -> dict[str, list[tuple]]:
    """Every stored row of ``bank`` (the bank itself and each model with a ``bank`` foreign key), all columns."""
    snapshot = {"banks.Bank": [tuple(map(_plain, row)) for row in Bank.objects.filter(pk=bank.pk).values_list()]}
    for model in apps.get_models():
        fields = {f.name: f for f in model._meta.get_fields()}
        field = fields.get("bank") or fields.get("content_object")  # guardian's per-bank permission rows
        if field is None or not field.many_to_one or field.related_model is not Bank:
            continue
        rows = model._base_manager.filter(**{field.name: bank}).order_by("pk").values_list()
        snapshot[model._meta.label] = [tuple(map(_plain, row)) for row in rows]
    return snapshot


def tenant_snapshot(tenant) -> dict[str, list[tuple]]:
    """Every stored row of ``tenant``: the tenant, each model with a ``tenant`` foreign key, and per-bank rows."""
    from banks.models import Tenant

    snapshot = {"banks.Tenant": [tuple(map(_plain, row)) for row in Tenant.objects.filter(pk=tenant.pk).values_list()]}
    for model in apps.get_models():
        field = {f.name: f for f in model._meta.get_fields()}.get("tenant")
        if field is None or not field.many_to_one or field.related_model is not Tenant:
            continue
        rows = model._base_manager.filter(tenant=tenant).order_by("pk").values_list()
        snapshot[model._meta.label] = [tuple(map(_plain, row)) for row in rows]
    for bank in Bank.objects.filter(tenant=tenant).order_by("pk"):
        for label, rows in bank_snapshot(bank).items():
            snapshot.setdefault(f"{label}@{bank.slug}", rows)
    return snapshot
