"""Semantic channel: nearest episodes by cosine distance over the HNSW index.

The only module that talks to pgvector. The HNSW index is scanned before the bank and
filter predicates apply, so a small bank inside a large table could come back short;
iterative index scans (pgvector >= 0.8) keep scanning until ``limit`` rows pass.

Approximate search alone drifts from the exact top-k as a bank grows (near-ties in a
dense neighbourhood are where a graph walk goes wrong). So the index walk collects a
deeper candidate list (``HNSW_RERANK_DEPTH``, iterative scans keep it full) and the
exact distances of those candidates pick the top ``limit``. A large bank has an IVFFlat
index of its own as well (``beliefs.services.vector_indexes``): a short HNSW walk and a
read of that index's nearest lists are merged before the exact re-rank.
"""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Value
from django.db.models.functions import Cast
from pgvector import Vector
from pgvector.django import CosineDistance, HalfVectorField

from banks.models import Bank
from beliefs.engine.types import Hit, RecallFilters
from beliefs.selectors.episodes import episodes_matching

CHANNEL = "semantic"


def bank_is_small(bank: Bank) -> bool:
    """Whether an exact scan of the bank is about as cheap as an index walk."""
    from beliefs.models import BankTextStats

    size = BankTextStats.objects.filter(bank=bank).values_list("doc_count", flat=True).first() or 0
    return size <= settings.MEMORYHUB["EXACT_SEARCH_BELOW"]


def index_probes(lists: int) -> int:
    """Lists of a bank's own IVFFlat index a query reads: at least ``VECTOR_INDEX_MIN_PROBES``, the square root of
    the lists in a very large index."""
    return min(lists, max(settings.MEMORYHUB["VECTOR_INDEX_MIN_PROBES"], round(math.sqrt(lists))))


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
    miss the one live row of a tiny bank — banks with an index of their own merge a short
    HNSW walk with its nearest lists, and other banks use HNSW.
    """
    if exact is None:
        exact = bank_is_small(bank)
    target = Value(Vector(query_vector).to_text())  # the vector's text form, made once for every walk
    candidates = episodes_matching(bank=bank, filters=filters, as_of=as_of).annotate(
        distance=CosineDistance("embedding", target)
    )
    by_distance = candidates.order_by("distance").values_list("id", "distance")
    options = {"hnsw.iterative_scan": "relaxed_order"}
    if exact:
        queryset = by_distance[:limit]
        options = {"enable_indexscan": "off"}
    elif bank.vector_index_lists:
        depth = max(limit, settings.MEMORYHUB["VECTOR_INDEX_DEPTH"])
        halfvec = HalfVectorField(dimensions=settings.MEMORYHUB["EMBEDDING_DIMENSIONS"])
        # The bank's own IVFFlat index orders by this cast (its index expression); both walks return exact distances.
        in_lists = candidates.order_by(CosineDistance(Cast("embedding", halfvec), target)).values_list("id", "distance")
        queryset = by_distance[:depth].union(in_lists[:depth], all=True)
        options.update(
            {
                "hnsw.ef_search": str(depth),
                "ivfflat.probes": str(index_probes(bank.vector_index_lists)),
                "ivfflat.iterative_scan": "relaxed_order",
            }
        )
    else:
        queryset = by_distance[: candidate_depth(limit)]
        options["hnsw.ef_search"] = str(max(settings.MEMORYHUB["HNSW_EF_SEARCH"], limit))
    with transaction.atomic(), connection.cursor() as cursor:
        # set_config(..., true) is SET LOCAL: it ends with this transaction and never leaks.
        cursor.execute(
            "SELECT current_setting('enable_indexscan'), " + ", ".join("set_config(%s, %s, true)" for _ in options),
            [value for item in options.items() for value in item],
        )
        previous = cursor.fetchone()[0]
        rows = list(queryset)
        if exact:  # inside a caller's transaction SET LOCAL would outlive this block: put it back
            cursor.execute("SELECT set_config('enable_indexscan', %s, true)", [previous])
    # Every returned distance is exact (computed from the stored vector); the walks only chose which rows to
    # visit. Re-ranking the candidates by those exact distances recovers the true top ``limit`` that an
    # approximate order would have cut off, and restores exact order after relaxed_order.
    rows = sorted(set(rows), key=lambda row: (row[1], row[0]))[:limit]
    return [
        Hit(item_id=pk, channel=CHANNEL, rank=rank, score=1.0 - float(distance))
        for rank, (pk, distance) in enumerate(rows, 1)
    ]
