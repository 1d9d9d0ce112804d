"""Recency channel: the newest episodes first. Not part of the default fusion; it is the
"most recent first" baseline the evaluation compares against, and a way to ask for
"what happened lately" explicitly."""

from __future__ import annotations

from datetime import datetime

from banks.models import Bank
from beliefs.engine.types import Hit, RecallFilters
from beliefs.selectors.episodes import episodes_matching

CHANNEL = "recent"


def search(*, bank: Bank, limit: int, filters: RecallFilters | None = None, as_of: datetime | None = None) -> list[Hit]:
    """Up to ``limit`` episodes, newest ``occurred_at`` first."""
    rows = (
        episodes_matching(bank=bank, filters=filters, as_of=as_of)
        .order_by("-occurred_at", "-id")
        .values_list("id", flat=True)[:limit]
    )
    return [Hit(item_id=pk, channel=CHANNEL, rank=rank, score=1.0 / rank) for rank, pk in enumerate(rows, 1)]
