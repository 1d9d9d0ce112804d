"""Recall: a cited slice of a bank's memory that never exceeds a token budget.

Four channels rank candidates independently and in parallel — semantic (pgvector
HNSW), keyword (full-text, BM25), graph (entities named in the query and one hop) and
temporal (the time the query asks about). Reciprocal rank fusion (k=60, per-bank
weights) merges them into a pool; the reranker orders the pool by the strength of each
signal and collapses near-duplicates; items are packed in that order into
``budget_tokens`` (counted with ``memoryhub.tokens.count_tokens`` over each item's
``text``), long items trimmed to their best passage rather than dropped. Everything
returned is untrusted, third-party text with provenance.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db import close_old_connections, connection, connections

from banks.models import Bank
from beliefs.channels import derived, graph, keyword, recency, semantic, temporal
from beliefs.engine.fusion import reciprocal_rank_fusion
from beliefs.engine.packing import MIN_TRIM_SOURCE_TOKENS, best_passage, pack_greedy
from beliefs.engine.rerank import Ranked, collapse_duplicates, keep_order, rerank
from beliefs.engine.temporal import names_time
from beliefs.engine.types import FusedCandidate, Hit, PackedItem, RecallFilters, RecallResult
from beliefs.selectors.beliefs import derived_coverage
from beliefs.selectors.episodes import (
    EpisodeCitation,
    episode_citations,
    episode_texts,
    episode_texts_and_vectors,
    episode_thread_neighbours,
    episodes_matching,
    ids_in,
)
from memoryhub import metrics, tracing
from memoryhub.embeddings import cross_encoder_scores, embed_query
from memoryhub.tenancy import REQUEST_TRANSACTION_DEPTH, set_session_tenant
from memoryhub.tokens import count_tokens

CHANNELS = ("semantic", "keyword", "graph", "temporal")
KINDS = ("episode", "belief", "fact", "play")
# Typical items cost 20-40 tokens: each channel contributes enough candidates to fill the budget.
_TOKENS_PER_CANDIDATE = 8
_MAX_CANDIDATES = 500
_WORKERS = 4
_EXECUTOR = ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="recall-channel")
# The connection and tenant each channel thread's session is scoped to, and when it was last checked.
_thread_scope = threading.local()
_CONNECTION_CHECK_SECONDS = 1.0


def close_channel_connections() -> None:
    """Close the database connections of every channel thread (before dropping a database)."""
    barrier = threading.Barrier(_WORKERS)

    def close() -> None:
        connections.close_all()
        barrier.wait(timeout=10)  # holds this thread so each task lands on a different one

    for future in [_EXECUTOR.submit(close) for _ in range(_WORKERS)]:
        future.result()


def candidates_per_channel(budget_tokens: int) -> int:
    """How deep each channel ranks: at least the configured floor, deeper for large budgets."""
    floor = settings.MEMORYHUB["RECALL_CANDIDATES_PER_CHANNEL"]
    return max(floor, min(_MAX_CANDIDATES, budget_tokens // _TOKENS_PER_CANDIDATE))


class _Runner:
    """Runs channel calls on pooled threads (each with its own database connection), or
    inline when the caller is inside a transaction whose uncommitted rows they must see."""

    def __init__(self, parallel: bool, tenant_id: int):
        self.parallel = parallel
        self.tenant_id = tenant_id
        self.timings: dict[str, float] = {}
        self.trace_parent = tracing.current_context()  # channel spans on pool threads join the recall's trace

    def submit(self, name: str, fn: Callable, **kwargs):
        def timed():
            started = time.perf_counter()
            with tracing.recall_stage(name, self.trace_parent) as stage:
                try:
                    if not self.parallel:
                        return stage.done(fn(**kwargs))
                    _check_thread_connection()
                    _scope_thread_session(self.tenant_id)
                    return stage.done(fn(**kwargs))
                finally:
                    self.timings[name] = round((time.perf_counter() - started) * 1000, 2)

        if self.parallel:
            return _EXECUTOR.submit(timed)
        return _Done(timed())


def _check_thread_connection() -> None:
    """Replace a channel thread's connection if it failed or outlived ``CONN_MAX_AGE``.

    Django's check runs a ``SELECT 1`` round trip when health checks are on; before every
    channel call that was nine extra queries per recall. A connection that just raised is
    checked at once, a healthy one at most every ``_CONNECTION_CHECK_SECONDS``.
    """
    now = time.monotonic()
    if connection.errors_occurred or now - getattr(_thread_scope, "checked_at", 0.0) >= _CONNECTION_CHECK_SECONDS:
        close_old_connections()
        _thread_scope.checked_at = now


def _scope_thread_session(tenant_id: int) -> None:
    """Scope a channel thread's own connection to the bank's tenant for row-level security.

    The session-wide scope is set again whenever the thread's connection or the tenant
    changes; these connections serve channel reads only, so one set-up serves every
    recall of the same tenant. A new connection starts unscoped and sees no rows.
    """
    connection.ensure_connection()
    raw = connection.connection
    if getattr(_thread_scope, "connection", None) is not raw or _thread_scope.tenant_id != tenant_id:
        _thread_scope.connection = None  # a failed set-up must not count as done
        set_session_tenant(tenant_id)
        _thread_scope.connection, _thread_scope.tenant_id = raw, tenant_id


def _may_run_in_parallel() -> bool:
    """Channel threads see only committed rows: fine outside transactions and inside an API request's own
    (read-only for recall) transaction, not inside a caller's transaction that may hold uncommitted rows."""
    if not connection.in_atomic_block:
        return True
    return REQUEST_TRANSACTION_DEPTH.get() == 1 and len(connection.atomic_blocks) == 1


class _Done:
    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


def _keyword_channel(*, run: bool, bank, query, limit, filters, as_of):
    """The query's weighted terms (reranking needs them) and, when asked, the keyword channel's hits."""
    terms = keyword.query_terms(bank=bank, text=query)
    if not run:
        return terms, []
    return terms, keyword.search(bank=bank, query_text=query, limit=limit, terms=terms, filters=filters, as_of=as_of)


@dataclasses.dataclass(frozen=True)
class _Draft:
    """A ranked candidate with just what packing needs; full rows are read only for what fits."""

    ranked: Ranked | None
    text: str
    tokens: int
    trimmed: bool = False
    derived: derived.DerivedHit | None = None
    covered: bool = False  # an episode a packed belief or fact already stands for


def _derived_packed(draft: _Draft) -> PackedItem:
    hit = draft.derived
    return PackedItem(
        item_id=hit.item_id,
        kind=hit.kind,
        text=draft.text,
        tokens=draft.tokens,
        score=hit.similarity,
        channels=("derived",),
        occurred_at=hit.occurred_at,
        recorded_at=hit.recorded_at,
        source="memoryhub",
        subject=hit.subject,
        provenance=hit.provenance,
        metadata=hit.details,
        episode_ids=hit.episode_ids,
    )


def _place_derived(drafts: list[_Draft], hits: list, dense: dict[int, float], covers: dict) -> list[_Draft]:
    """Put each belief or fact where it outranks the episodes it summarises; move those episodes last.

    A derived item goes at the first position whose episode is one of its sources or is
    less similar to the query than the item itself. The episodes it stands for move
    behind every other candidate: a tight budget packs the belief instead of them, a
    roomy one still has them.
    """
    if not hits:
        return drafts
    positions = []
    for hit in hits:
        sources = covers.get((hit.kind, hit.item_id), set(hit.episode_ids))
        position = len(drafts)
        for index, draft in enumerate(drafts):
            pk = draft.ranked.candidate.item_id
            if pk in sources or dense.get(pk, 0.0) < hit.similarity:
                position = index
                break
        positions.append((position, -hit.similarity, hit, sources))
    positions.sort(key=lambda entry: (entry[0], entry[1]))
    covered = set().union(*(sources for *_, sources in positions))
    result: list[_Draft] = []
    queue = iter(positions)
    pending = next(queue, None)
    for index, draft in enumerate(drafts):
        while pending is not None and pending[0] <= index:
            result.append(_Draft(ranked=None, text=pending[2].text, tokens=pending[2].tokens, derived=pending[2]))
            pending = next(queue, None)
        if draft.ranked.candidate.item_id not in covered:
            result.append(draft)
    while pending is not None:
        result.append(_Draft(ranked=None, text=pending[2].text, tokens=pending[2].tokens, derived=pending[2]))
        pending = next(queue, None)
    result.extend(dataclasses.replace(d, covered=True) for d in drafts if d.ranked.candidate.item_id in covered)
    return result


def _packed(draft: _Draft, episode: EpisodeCitation) -> PackedItem:
    candidate = draft.ranked.candidate
    return PackedItem(
        item_id=episode.pk,
        kind="episode",
        text=draft.text,
        tokens=draft.tokens,
        score=draft.ranked.score,
        channels=candidate.channels,
        occurred_at=episode.occurred_at,
        recorded_at=episode.recorded_at,
        source=episode.source,
        subject=episode.subject,
        provenance=episode.provenance,
        metadata=episode.metadata,
        channel_ranks=candidate.channel_ranks,
        channel_scores=candidate.channel_scores,
        features=draft.ranked.features,
        duplicates=draft.ranked.duplicates,
        trimmed=draft.trimmed,
        flags=tuple(episode.injection_flags or ()),
    )


def _with_thread_neighbours(bank, pool, *, filters, as_of):
    """Add the thread neighbours of pool candidates (that pass the filters) as ``context`` candidates."""
    neighbours = episode_thread_neighbours(bank=bank, ids=[candidate.item_id for candidate in pool])
    in_pool = {candidate.item_id for candidate in pool}
    missing = {pk for pair in neighbours.values() for pk in pair if pk is not None and pk not in in_pool}
    if missing:
        allowed = episodes_matching(bank=bank, filters=filters, as_of=as_of).filter(pk__in=ids_in(missing))
        pool = pool + [
            FusedCandidate(item_id=pk, score=0.0, channels=("context",))
            for pk in sorted(allowed.values_list("id", flat=True))
        ]
    return pool, neighbours


@tracing.traced_recall
def recall(
    *,
    bank: Bank,
    query: str,
    budget_tokens: int,
    filters: RecallFilters | None = None,
    as_of: datetime | None = None,
    channels: Sequence[str] = CHANNELS,
    rerank_results: bool = True,
    now: datetime | None = None,
    kinds: Sequence[str] = KINDS,
) -> RecallResult:
    """Items of ``bank`` relevant to ``query``, best first. Never returns more than ``budget_tokens`` tokens.

    ``kinds`` picks episodes, beliefs and facts; a belief is preferred over the episodes it
    summarises when the budget cannot hold both.
    """
    started = time.perf_counter()
    limit = candidates_per_channel(budget_tokens)
    runner = _Runner(
        parallel=settings.MEMORYHUB["PARALLEL_CHANNELS"] and _may_run_in_parallel(), tenant_id=bank.tenant_id
    )
    scope = {"bank": bank, "filters": filters, "as_of": as_of}

    # Embed first: the model wants both cores, and the channels need its vector anyway.
    embed_started = time.perf_counter()
    query_vector = embed_query(query)
    runner.timings["embed"] = round((time.perf_counter() - embed_started) * 1000, 2)
    tracing.record_stage("embed", embed_started)
    pending = {}
    # One read of the bank's size decides exact vs HNSW search for every vector channel.
    exact = semantic.bank_is_small(bank)
    # The reference time costs a query; only a query with a time expression needs it.
    reference_future = (
        runner.submit("reference", temporal.reference_time, bank=bank, now=now, as_of=as_of)
        if names_time(query)
        else _Done(now)
    )
    keyword_future = runner.submit(
        "keyword", _keyword_channel, run="keyword" in channels, query=query, limit=limit, **scope
    )
    if "semantic" in channels:
        pending["semantic"] = runner.submit(
            "semantic", semantic.search, query_vector=query_vector, limit=limit, exact=exact, **scope
        )
    if "graph" in channels:
        pending["graph"] = runner.submit("graph", graph.search, query_text=query, limit=limit, **scope)
    if "recent" in channels:
        pending["recent"] = runner.submit("recent", recency.search, limit=limit, **scope)
    derived_kinds = tuple(kind for kind in ("belief", "fact", "play") if kind in kinds)
    derived_future = (
        runner.submit(
            "derived",
            derived.search,
            bank=bank,
            query_vector=query_vector,
            limit=settings.MEMORYHUB["RECALL_CANDIDATES_PER_CHANNEL"],
            as_of=as_of,
            kinds=derived_kinds,
            exact=exact,
        )
        if derived_kinds
        else _Done([])
    )
    reference = reference_future.result()
    ranges = temporal.query_ranges(query, reference)
    if "temporal" in channels:
        pending["temporal"] = runner.submit(
            "temporal",
            temporal.search,
            query_text=query,
            query_vector=query_vector,
            limit=limit,
            ranges=ranges,
            exact=exact,
            **scope,
        )
    terms, keyword_hits = keyword_future.result()
    channels_done = time.perf_counter()
    ranked: dict[str, list[Hit]] = {name: future.result() for name, future in pending.items()}
    if "keyword" in channels:
        ranked["keyword"] = keyword_hits

    policy = bank.policy if isinstance(bank.policy, dict) else {}
    fused = reciprocal_rank_fusion(ranked, k=settings.MEMORYHUB["RRF_K"], weights=policy.get("channel_weights"))
    pool = fused[: 2 * limit]
    neighbours = {}
    if rerank_results and pool:
        pool, neighbours = _with_thread_neighbours(bank, pool, filters=filters, as_of=as_of)
    ids = [candidate.item_id for candidate in pool]
    if rerank_results and pool:
        # The pool's rows and BM25 scores are independent reads: fetch them side by side.
        rows_future = runner.submit("texts", episode_texts_and_vectors, bank=bank, ids=ids)
        lexical_future = runner.submit("lexical", keyword.scores_for, bank=bank, terms=terms, episode_ids=ids)
        rows = rows_future.result()
        texts = {pk: (text, tokens) for pk, (text, tokens, _) in rows.items()}
        vectors = {pk: vector for pk, (_, _, vector) in rows.items()}
        lexical = lexical_future.result()
        dense = np.array([float(vectors[pk] @ query_vector) if pk in vectors else 0.0 for pk in ids])
        cross = None
        if settings.MEMORYHUB["RERANK_MODEL"]:
            cross = cross_encoder_scores(query, [texts.get(pk, ("", 0))[0] for pk in ids])
        reranked = rerank(
            pool,
            dense=dense,
            lexical=lexical,
            weights=policy.get("rerank_weights"),
            cross_scores=cross,
            neighbours=neighbours,
        )
        ordered = collapse_duplicates(reranked, vectors, {pk: text for pk, (text, _) in texts.items()})
    else:
        texts = episode_texts(bank=bank, ids=ids)
        ordered = keep_order(pool)

    drafts = [
        _Draft(ranked=r, text=texts[r.candidate.item_id][0], tokens=texts[r.candidate.item_id][1])
        for r in ordered
        if r.candidate.item_id in texts and "episode" in kinds
    ]
    derived_hits = derived_future.result()
    if derived_hits:
        dense_by_id = dict(zip(ids, dense.tolist(), strict=True)) if rerank_results and pool else {}
        covers = derived_coverage(
            bank=bank, hits=derived_hits, episode_ids=[d.ranked.candidate.item_id for d in drafts]
        )
        drafts = _place_derived(drafts, derived_hits, dense_by_id, covers)

    def trim(draft: _Draft, room: int) -> _Draft | None:
        if draft.derived is not None or draft.tokens < MIN_TRIM_SOURCE_TOKENS:
            return None
        passage = best_passage(draft.text, query=query, max_tokens=room, count_tokens=count_tokens)
        if passage is None:
            return None
        return _Draft(ranked=draft.ranked, text=passage, tokens=count_tokens(passage), trimmed=True)

    packing = pack_greedy(drafts, budget_tokens=budget_tokens, cost=lambda draft: draft.tokens, trim=trim)
    details = episode_citations(bank=bank, ids=[d.ranked.candidate.item_id for d in packing.chosen if d.ranked])
    items = tuple(
        _derived_packed(draft) if draft.derived is not None else _packed(draft, details[draft.ranked.candidate.item_id])
        for draft in packing.chosen
        if draft.derived is not None or draft.ranked.candidate.item_id in details
    )
    runner.timings["rank_and_pack"] = round((time.perf_counter() - channels_done) * 1000, 2)
    tracing.record_stage("rank_and_pack", channels_done, **{"memoryhub.recall.packed": len(items)})
    result = RecallResult(
        items=items,
        budget_tokens=budget_tokens,
        tokens_used=sum(item.tokens for item in items),
        candidates=len(drafts),
        dropped_by_budget=packing.dropped,
        channel_counts={name: len(hits) for name, hits in ranked.items()},
        elapsed_ms=(time.perf_counter() - started) * 1000,
        query_tokens=count_tokens(query),
        trimmed=packing.trimmed,
        reference_time=reference,
        time_ranges=tuple((r.start, r.end, r.text) for r in ranges),
        channel_ms=dict(runner.timings),
    )
    metrics.observe_recall(result)
    return result
