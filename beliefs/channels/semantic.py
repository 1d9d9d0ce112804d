"""Semantic channel: nearest episodes by cosine distance over the HNSW index.

The query itself is ``beliefs.channels.vectors.nearest_episodes``. The HNSW index is
scanned before the bank and filter predicates apply, so a small bank inside a large table
could come back short; iterative index scans (pgvector >= 0.8) keep scanning until
``limit`` rows pass.

Approximate search alone drifts from the exact top-k as a bank grows (near-ties in a
dense neighbourhood are where a graph walk goes wrong). So the index walk collects a
deeper candidate list (``HNSW_RERANK_DEPTH``, iterative scans keep it full) and the
exact distances of those candidates pick the top ``limit``. A large bank has an IVFFlat
index of its own instead (``beliefs.services.vector_indexes``): a read of that index's
nearest lists, merged with a short HNSW walk in the largest banks, before the exact
re-rank. In a shared graph a walk must step over every other bank's rows to collect one
bank's candidates; the bank's own lists hold nothing else.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
from django.conf import settings

from banks.models import Bank
from beliefs.channels import vectors
from beliefs.channels.filters import EpisodeScope, episode_scope
from beliefs.channels.vectors import bank_is_small, candidate_depth, index_probes
from beliefs.engine.types import Hit, RecallFilters

CHANNEL = "semantic"
__all__ = ["CHANNEL", "bank_is_small", "candidate_depth", "index_probes", "search"]


def search(
    *,
    bank: Bank,
    query_vector: np.ndarray,
    limit: int,
    filters: RecallFilters | None = None,
    as_of: datetime | None = None,
    exact: bool | None = None,
    scope: EpisodeScope | None = None,
    vector: str | None = None,
) -> list[Hit]:
    """Up to ``limit`` episodes closest to ``query_vector``; score = cosine similarity.

    ``exact=True`` disables the index (a sequential scan): the ground truth benchmarks
    compare the index against. By default small banks are searched exactly — it costs a
    few milliseconds there, and an approximate graph walk through a big shared index can
    miss the one live row of a tiny bank — banks with an index of their own read its nearest
    lists (the largest merge a short HNSW walk), and other banks use HNSW. ``scope`` and ``vector``
    (the filters' SQL and the vector's text) spare recomputing what recall made once.
    """
    if exact is None:
        exact = bank_is_small(bank)
    rows = vectors.nearest_episodes(
        scope or episode_scope(bank, filters, as_of),
        vector=vector or vectors.query_text(query_vector),
        limit=limit,
        exact=exact,
        own_index_lists=bank.vector_index_lists,
        own_index_walk=bank.vector_index_episodes >= settings.MEMORYHUB["VECTOR_INDEX_WALK_FROM"],
    )
    return [
        Hit(item_id=pk, channel=CHANNEL, rank=rank, score=1.0 - float(distance))
        for rank, (pk, distance) in enumerate(rows, 1)
    ]
