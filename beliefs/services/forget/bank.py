"""Forget a whole bank: every row it owns goes, and a receipt of counts (never content) remains."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from beliefs.models import Belief, Episode, Fact, MentalModel
from memoryhub import metrics


def bank_forget_and_audit(*, request=None, bank: Bank, requested_by: str) -> dict:
    """Forget a whole bank (``bank_forget``) and audit it with the receipt: ``DELETE banks/{bank}/`` and the
    tenant settings page call this."""
    tenant_id, slug = bank.tenant_id, bank.slug
    receipt = bank_forget(bank=bank, requested_by=requested_by)
    audit_record(request=request, tenant=tenant_id, action="bank.deleted", target=f"bank:{slug}", details=receipt)
    return receipt


def bank_forget(*, bank: Bank, requested_by: str) -> dict:
    """Delete a whole bank with everything in it; returns a receipt of what went (no content)."""
    with transaction.atomic():
        receipt = {
            "bank": bank.slug,
            "removed": {
                "episodes": Episode.objects.filter(bank=bank).count(),
                "facts": Fact.objects.filter(bank=bank).count(),
                "beliefs": Belief.objects.filter(bank=bank).count(),
                "mental_models": MentalModel.objects.filter(bank=bank).count(),
            },
            "requested_by": requested_by[:200],
            "completed_at": timezone.now().isoformat(),
        }
        bank.delete()
    metrics.observe_erasure(receipt["removed"]["episodes"])
    return receipt
