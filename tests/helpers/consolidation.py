"""Helpers shared by the consolidation tests: retain typed events and run the background chain inline."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from banks.models import Bank
from beliefs.services.consolidate import consolidate
from beliefs.services.extract import bank_extract
from beliefs.services.retain import RetainItem, retain

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def alert(signature: str, host: str, at: datetime, value: float = 97.0) -> RetainItem:
    return RetainItem(
        content=f"ALERT {signature} on {host}: value {value} above threshold",
        occurred_at=at,
        source="monitoring",
        provenance="tool",
        metadata={"event": "alert", "signature": signature, "host": host, "value": value},
    )


def dismissal(signature: str, host: str, at: datetime, reason: str = "nightly backup job") -> RetainItem:
    return RetainItem(
        content=f"Analyst closed {signature} on {host} as benign: {reason}.",
        occurred_at=at,
        source="analyst",
        metadata={"event": "dismissal", "signature": signature, "host": host, "reason": reason},
    )


def incident(signature: str, host: str, at: datetime) -> RetainItem:
    return RetainItem(
        content=f"Confirmed incident: {signature} on {host} was a real outage.",
        occurred_at=at,
        source="analyst",
        metadata={"event": "incident", "signature": signature, "host": host},
    )


def days(n: float) -> timedelta:
    return timedelta(days=n)


def remember(bank: Bank, items: list[RetainItem], *, now: datetime | None = None) -> None:
    """Retain ``items`` and run extraction and consolidation inline (what the worker chain does)."""
    retain(bank=bank, items=items)
    bank_extract(bank=bank)
    consolidate(bank=bank, now=now or max(item.occurred_at for item in items) + days(1))
