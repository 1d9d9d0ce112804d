"""Tombstones: keyed hashes of erased subjects, so a later import cannot bring them back.

The hash is an HMAC of the tenant and the normalised subject under the deployment's
secret key: the table never holds the subject, and a stolen copy cannot be checked
against a list of guesses without the key.
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings
from django.db.models import Q

from banks.models import Bank
from beliefs.models import Tombstone


def subject_hash(*, tenant_id: int, subject: str) -> str:
    message = f"{tenant_id}\x1f{subject.strip().lower()}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()


def erased_subjects(*, bank: Bank, subjects: set[str]) -> set[str]:
    """Which of ``subjects`` were erased in ``bank`` or across its tenant."""
    if not subjects:
        return set()
    hashes = {subject_hash(tenant_id=bank.tenant_id, subject=s): s for s in subjects}
    found = Tombstone.objects.filter(
        Q(bank=bank) | Q(bank__isnull=True), tenant_id=bank.tenant_id, subject_hash__in=hashes
    ).values_list("subject_hash", flat=True)
    return {hashes[h] for h in found}
