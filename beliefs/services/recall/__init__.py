"""Recall: a cited slice of a bank's memory that never exceeds a token budget.

``recall()`` runs three stages (``stages.py``):

1. **gather**: embed the query, then run the channels side by side on the channel
   threads (``runner.py``): semantic (pgvector), keyword (full-text, BM25), graph
   (entities named in the query and one hop), temporal (the time the query asks about),
   and beliefs/facts/plays close in meaning (``derived``);
2. **rank**: reciprocal rank fusion (k=60, per-bank weights) merges the lists into a pool;
   the reranker orders the pool by the strength of each signal (dense similarity, BM25,
   the temporal and graph votes, the thread neighbours' scores) and collapses near-duplicates;
3. **pack**: beliefs and facts are placed where they outrank the episodes they summarise
   (``placement.py``), then items are packed in order into ``budget_tokens`` (counted with
   ``memoryhub.tokens.count_tokens`` over each item's ``text``), long items trimmed to
   their best passage rather than dropped.

Everything returned is untrusted, third-party text with provenance.
"""

from __future__ import annotations

import time
from datetime import datetime

from banks.models import Bank
from beliefs.engine.types import RecallFilters, RecallResult
from beliefs.services.recall.options import CHANNELS, KINDS, RecallOptions, candidates_per_channel
from beliefs.services.recall.runner import channel_runner
from beliefs.services.recall.stages import RecallRequest, gather, pack, rank
from memoryhub import metrics, tracing
from memoryhub.tokens import count_tokens

__all__ = ["CHANNELS", "KINDS", "RecallOptions", "candidates_per_channel", "recall"]
_DEFAULT = RecallOptions()


@tracing.traced_recall
def recall(
    *,
    bank: Bank,
    query: str,
    budget_tokens: int,
    filters: RecallFilters | None = None,
    as_of: datetime | None = None,
    options: RecallOptions = _DEFAULT,
) -> RecallResult:
    """Items of ``bank`` relevant to ``query``, best first. Never returns more than ``budget_tokens`` tokens.

    A belief is preferred over the episodes it summarises when the budget cannot hold both.
    ``as_of`` recalls what the bank knew then; ``options`` picks channels, kinds, reranking
    and the reference time.
    """
    started = time.perf_counter()
    request = RecallRequest(bank, query, budget_tokens, filters, as_of, options)
    with channel_runner().batch(tenant_id=bank.tenant_id) as batch:
        gathered = gather(request, batch)
        with batch.timed("rank_and_pack") as span:
            packed = pack(request, gathered, rank(request, gathered, batch))
            span["memoryhub.recall.packed"] = len(packed.items)
    result = RecallResult(
        items=packed.items,
        budget_tokens=budget_tokens,
        tokens_used=sum(item.tokens for item in packed.items),
        candidates=packed.candidates,
        dropped_by_budget=packed.packing.dropped,
        channel_counts={name: len(hits) for name, hits in gathered.ranked.items()},
        elapsed_ms=(time.perf_counter() - started) * 1000,
        query_tokens=count_tokens(query),
        trimmed=packed.packing.trimmed,
        reference_time=gathered.reference,
        time_ranges=tuple((r.start, r.end, r.text) for r in gathered.ranges),
        channel_ms=dict(batch.timings),
    )
    metrics.observe_recall(result)
    return result
