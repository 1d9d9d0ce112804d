"""Recall: a cited slice of a bank's memory that never exceeds a token budget.

Channels rank candidates independently (semantic over pgvector, keyword over
PostgreSQL full-text); reciprocal rank fusion (k=60) merges them; items are packed in
fused order into ``budget_tokens``, counted with ``memoryhub.tokens.count_tokens`` over
each item's ``text``. Everything returned is untrusted, third-party text with provenance.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime

from django.conf import settings

from banks.models import Bank
from beliefs.channels import keyword, recency, semantic
from beliefs.engine.fusion import reciprocal_rank_fusion
from beliefs.engine.packing import pack_greedy
from beliefs.engine.types import Hit, PackedItem, RecallFilters, RecallResult
from beliefs.selectors.episodes import episodes_by_ids
from memoryhub.embeddings import embed_query
from memoryhub.tokens import count_tokens

CHANNELS = ("semantic", "keyword")
ALL_CHANNELS = (*CHANNELS, "recent")
# Typical items cost 20-40 tokens: each channel contributes enough candidates to fill the budget.
_TOKENS_PER_CANDIDATE = 8
_MAX_CANDIDATES = 500


def candidates_per_channel(budget_tokens: int) -> int:
    """How deep each channel ranks: at least the configured floor, deeper for large budgets."""
    floor = settings.MEMORYHUB["RECALL_CANDIDATES_PER_CHANNEL"]
    return max(floor, min(_MAX_CANDIDATES, budget_tokens // _TOKENS_PER_CANDIDATE))


def recall(
    *,
    bank: Bank,
    query: str,
    budget_tokens: int,
    filters: RecallFilters | None = None,
    as_of: datetime | None = None,
    channels: Sequence[str] = CHANNELS,
) -> RecallResult:
    """Items of ``bank`` relevant to ``query``, best first. Never returns more than ``budget_tokens`` tokens."""
    started = time.perf_counter()
    limit = candidates_per_channel(budget_tokens)
    ranked: dict[str, list[Hit]] = {}
    if "semantic" in channels:
        ranked["semantic"] = semantic.search(
            bank=bank, query_vector=embed_query(query), limit=limit, filters=filters, as_of=as_of
        )
    if "keyword" in channels:
        ranked["keyword"] = keyword.search(bank=bank, query_text=query, limit=limit, filters=filters, as_of=as_of)
    if "recent" in channels:
        ranked["recent"] = recency.search(bank=bank, limit=limit, filters=filters, as_of=as_of)

    weights = bank.policy.get("channel_weights") if isinstance(bank.policy, dict) else None
    fused = reciprocal_rank_fusion(ranked, k=settings.MEMORYHUB["RRF_K"], weights=weights)
    episodes = episodes_by_ids(bank=bank, ids=[candidate.item_id for candidate in fused])
    candidates = [
        PackedItem(
            item_id=episode.pk,
            kind="episode",
            text=episode.content,
            tokens=episode.token_count,
            score=candidate.score,
            channels=candidate.channels,
            occurred_at=episode.occurred_at,
            recorded_at=episode.recorded_at,
            source=episode.source,
            subject=episode.subject,
            provenance=episode.provenance,
            metadata=episode.metadata,
            channel_ranks=candidate.channel_ranks,
            channel_scores=candidate.channel_scores,
        )
        for candidate in fused
        if (episode := episodes.get(candidate.item_id)) is not None
    ]
    packing = pack_greedy(candidates, budget_tokens=budget_tokens, cost=lambda item: item.tokens)
    return RecallResult(
        items=tuple(packing.chosen),
        budget_tokens=budget_tokens,
        tokens_used=packing.tokens_used,
        candidates=len(candidates),
        dropped_by_budget=packing.dropped,
        channel_counts={name: len(hits) for name, hits in ranked.items()},
        elapsed_ms=(time.perf_counter() - started) * 1000,
        query_tokens=count_tokens(query),
    )
