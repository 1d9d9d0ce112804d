"""Semantic channel: nearest episodes by cosine distance over the HNSW index.

The only module that talks to pgvector. The HNSW index is scanned before the bank and
filter predicates apply, so a small bank inside a large table could come back short;
iterative index scans (pgvector >= 0.8) keep scanning until ``limit`` rows pass.

Approximate search alone drifts from the exact top-k as a bank grows (near-ties in a
dense neighbourhood are where a graph walk goes wrong). So the index walk collects a
deeper candidate list (``HNSW_RERANK_DEPTH``, iterative scans keep it full) and the
exact distances of those candidates pick the top ``limit``.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from pgvector.django import CosineDistance

from banks.models import Bank
from beliefs.engine.types import Hit, RecallFilters
from beliefs.selectors.episodes import episodes_matching

CHANNEL = "semantic"


def bank_is_small(bank: Bank) -> bool:
    """Whether an exact scan of the bank is about as cheap as an index walk."""
    from beliefs.models import BankTextStats

    size = BankTextStats.objects.filter(bank=bank).values_list("doc_count", flat=True).first() or 0
    return size <= settings.MEMORYHUB["EXACT_SEARCH_BELOW"]


def candidate_depth(limit: int) -> int:
    """How many index candidates an approximate search collects before the exact re-rank keeps ``limit``."""
    return max(limit, settings.MEMORYHUB["HNSW_RERANK_DEPTH"])


def search(
    *,
    bank: Bank,
    query_vector: np.ndarray,
    limit: int,
    filters: RecallFilters | None = None,
    as_of: datetime | None = None,
    exact: bool | None = None,
) -> list[Hit]:
    """Up to ``limit`` episodes closest to ``query_vector``; score = cosine similarity.

    ``exact=True`` disables the index (a sequential scan): the ground truth benchmarks
    compare the index against. By default small banks are searched exactly — it costs a
    few milliseconds there, and an approximate graph walk through a big shared index can
    miss the one live row of a tiny bank — and larger banks use HNSW.
    """
    if exact is None:
        exact = bank_is_small(bank)
    queryset = (
        episodes_matching(bank=bank, filters=filters, as_of=as_of)
        .annotate(distance=CosineDistance("embedding", query_vector))
        .order_by("distance")
        .values_list("id", "distance")
    )
    depth = limit if exact else candidate_depth(limit)
    queryset = queryset[:depth]
    with transaction.atomic(), connection.cursor() as cursor:
        # set_config(..., true) is SET LOCAL: it ends with this transaction and never leaks.
        if exact:
            cursor.execute("SELECT current_setting('enable_indexscan'), set_config('enable_indexscan', 'off', true)")
            previous = cursor.fetchone()[0]
        else:
            ef_search = max(settings.MEMORYHUB["HNSW_EF_SEARCH"], limit)
            cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(ef_search)])
            cursor.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
        rows = list(queryset)
        if exact:  # inside a caller's transaction SET LOCAL would outlive this block: put it back
            cursor.execute("SELECT set_config('enable_indexscan', %s, true)", [previous])
    # Every returned distance is exact (computed from the stored vector); the walk only chose which rows to
    # visit. Re-ranking a deeper candidate list by those exact distances recovers the true top ``limit`` that an
    # approximate order would have cut off, and restores exact order after relaxed_order.
    rows.sort(key=lambda row: (row[1], row[0]))
    rows = rows[:limit]
    return [
        Hit(item_id=pk, channel=CHANNEL, rank=rank, score=1.0 - float(distance))
        for rank, (pk, distance) in enumerate(rows, 1)
    ]
