"""Forget a whole bank: every row it owns goes, and a receipt of counts (never content) remains."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from beliefs.models import Belief, Episode, Fact, MentalModel
from memoryhub import metrics


def bank_forget(*, bank: Bank, actor: str) -> dict:
    """Delete a whole bank with everything in it for ``actor``; returns (and audits) a receipt of what went."""
    with transaction.atomic():
        receipt = {
            "bank": bank.slug,
            "removed": {
                "episodes": Episode.objects.filter(bank=bank).count(),
                "facts": Fact.objects.filter(bank=bank).count(),
                "beliefs": Belief.objects.filter(bank=bank).count(),
                "mental_models": MentalModel.objects.filter(bank=bank).count(),
            },
            "requested_by": actor[:200],
            "completed_at": timezone.now().isoformat(),
        }
        tenant_id, slug = bank.tenant_id, bank.slug
        bank.delete()
        audit_record(tenant=tenant_id, action="bank.deleted", target=f"bank:{slug}", details=receipt, actor=actor)
    metrics.observe_erasure(receipt["removed"]["episodes"])
    return receipt
