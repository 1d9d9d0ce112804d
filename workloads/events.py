"""Helpers shared by the workloads: retain a typed event and fold it in at a given time."""

from __future__ import annotations

from datetime import datetime

from banks.models import Bank
from beliefs.services.consolidate import consolidate
from beliefs.services.extract import bank_extract
from beliefs.services.retain import RetainItem, retain


def record_event(
    *,
    bank: Bank,
    content: str,
    metadata: dict,
    occurred_at: datetime,
    source: str,
    provenance: str = "user",
    subject: str = "",
    fold_now: bool = False,
    idempotency_key: str | None = None,
) -> int | None:
    """Retain one typed event; with ``fold_now`` extract and consolidate it at once (replays, triage feedback)."""
    result = retain(
        bank=bank,
        items=[
            RetainItem(
                content=content,
                occurred_at=occurred_at,
                source=source,
                provenance=provenance,
                subject=subject,
                metadata=metadata,
                idempotency_key=idempotency_key,
            )
        ],
    )
    if fold_now:
        bank_extract(bank=bank)
        consolidate(bank=bank, now=occurred_at)
    return result.outcomes[0].episode_id
