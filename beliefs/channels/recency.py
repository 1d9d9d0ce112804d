"""Recency channel: the newest episodes first. Not part of the default fusion; it is the
"most recent first" baseline the evaluation compares against, and a way to ask for
"what happened lately" explicitly."""

from __future__ import annotations

from datetime import datetime

from django.db import connection

from banks.models import Bank
from beliefs.channels.filters import EpisodeScope, episode_scope
from beliefs.engine.types import Hit, RecallFilters

CHANNEL = "recent"


def search(
    *,
    bank: Bank,
    limit: int,
    filters: RecallFilters | None = None,
    as_of: datetime | None = None,
    scope: EpisodeScope | None = None,
) -> list[Hit]:
    """Up to ``limit`` episodes, newest ``occurred_at`` first."""
    scope = scope or episode_scope(bank, filters, as_of)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT e.id FROM beliefs_episode e WHERE {scope.sql} ORDER BY e.occurred_at DESC, e.id DESC LIMIT %s",
            [*scope.params, limit],
        )
        rows = [row[0] for row in cursor.fetchall()]
    return [Hit(item_id=pk, channel=CHANNEL, rank=rank, score=1.0 / rank) for rank, pk in enumerate(rows, 1)]
