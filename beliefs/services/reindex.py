"""Rebuild a bank's derived search structures (entities, links, time mentions, term statistics)."""

from __future__ import annotations

from django.db import transaction

from banks.models import Bank
from beliefs.models import BankTerm, BankTextStats, Entity, Episode
from beliefs.services.indexing import episodes_index


def bank_reindex(*, bank: Bank, batch_size: int = 1000) -> int:
    """Drop and rebuild everything ``episodes_index`` derives for ``bank``; returns episodes indexed.

    Needed after the extraction rules change, or for episodes stored before a structure existed.
    """
    with transaction.atomic():
        Entity.objects.filter(bank=bank).delete()  # cascades to episode links
        BankTerm.objects.filter(bank=bank).delete()
        BankTextStats.objects.filter(bank=bank).delete()
    ids = list(Episode.objects.filter(bank=bank).order_by("id").values_list("id", flat=True))
    for offset in range(0, len(ids), batch_size):
        with transaction.atomic():
            episodes_index(bank=bank, episode_ids=ids[offset : offset + batch_size])
    return len(ids)
