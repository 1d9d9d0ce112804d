"""Recall's three stages: ``gather`` runs the channels, ``rank`` fuses and reranks, ``pack`` fills the budget.

Each stage reads what the one before produced (``Gathered``, ``Ranking``) and submits its
database reads through the recall's ``ChannelBatch``, which times every one of them.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db import connection

from banks.models import Bank
from beliefs.channels import derived, graph, keyword, recency, semantic, temporal, vectors
from beliefs.channels.filters import EpisodeScope, episode_scope
from beliefs.channels.pool import PoolRows, pool_fetch, pool_rows
from beliefs.engine.feedback import HOP_SOURCES, top_positions
from beliefs.engine.fusion import Fused, fuse
from beliefs.engine.packing import MIN_TRIM_SOURCE_TOKENS, Packing, best_passage, pack_greedy, with_neighbours
from beliefs.engine.rerank import cover, duplicates_of, latest_faces, rank_order, rerank_scores, subject_named
from beliefs.engine.temporal import TimeRange, names_time
from beliefs.engine.types import Hit, PackedItem, RecallFilters
from beliefs.selectors.beliefs import derived_coverage
from beliefs.services.recall.options import RecallOptions, candidates_per_channel
from beliefs.services.recall.placement import Draft, derived_item, episode_item, place_derived
from beliefs.services.recall.refine import refine
from beliefs.services.recall.runner import ChannelBatch, Done
from memoryhub.embeddings import cross_encoder_scores, embed_query
from memoryhub.tokens import count_tokens


@dataclass(frozen=True)
class RecallRequest:
    """What one recall asks for."""

    bank: Bank
    query: str
    budget_tokens: int
    filters: RecallFilters | None
    as_of: datetime | None
    options: RecallOptions


@dataclass
class Gathered:
    """What the channels found: ranked hits per channel, the query's terms and time, derived items to come."""

    query_vector: np.ndarray
    vector: str  # its text form, for SQL
    scope: EpisodeScope
    limit: int
    terms: keyword.QueryTerms
    ranked: dict[str, list[Hit]]
    derived: object  # a future of derived.search's hits: resolved by ``pack``, so it overlaps ``rank``
    reference: datetime | None
    ranges: list[TimeRange] = field(default_factory=list)


def gather(request: RecallRequest, batch: ChannelBatch) -> Gathered:
    """Embed the query, then run every asked-for channel side by side."""
    options, bank = request.options, request.bank
    limit = candidates_per_channel(request.budget_tokens)
    with batch.timed("embed"):  # first: the model wants both cores, and the channels need its vector anyway
        query_vector = embed_query(request.query)
    vector, scope = vectors.query_text(query_vector), episode_scope(bank, request.filters, request.as_of)
    common = {"bank": bank, "scope": scope}
    exact = bank_is_small(bank)  # one read decides exact vs index search for every vector channel
    # The reference time costs a query; only a query with a time expression needs it.
    reference_future = (
        batch.submit("reference", temporal.reference_time, bank=bank, now=options.now, as_of=request.as_of)
        if names_time(request.query)
        else Done(options.now)
    )
    keyword_future = batch.submit(
        "keyword", _keyword_channel, run="keyword" in options.channels, query=request.query, limit=limit, **common
    )
    pending = {}
    if "semantic" in options.channels:
        pending["semantic"] = batch.submit(
            "semantic", semantic.search, query_vector=query_vector, vector=vector, limit=limit, exact=exact, **common
        )
    if "graph" in options.channels:
        pending["graph"] = batch.submit("graph", graph.search, query_text=request.query, limit=limit, **common)
    if "recent" in options.channels:
        pending["recent"] = batch.submit("recent", recency.search, limit=limit, **common)
    derived_future = _submit_derived(request, batch, query_vector=query_vector, vector=vector, exact=exact)
    reference = reference_future.result()
    ranges = temporal.query_ranges(request.query, reference)
    if "temporal" in options.channels:
        pending["temporal"] = batch.submit(
            "temporal",
            temporal.search,
            query_text=request.query,
            query_vector=query_vector,
            vector=vector,
            limit=limit,
            ranges=ranges,
            exact=exact,
            **common,
        )
    terms, keyword_hits = keyword_future.result()
    ranked = {name: future.result() for name, future in pending.items()}
    if "keyword" in options.channels:
        ranked["keyword"] = keyword_hits
    return Gathered(query_vector, vector, scope, limit, terms, ranked, derived_future, reference, ranges)


# Whether a bank is small enough to search exactly, per bank, for a few seconds: one read per recall otherwise. A
# bank that just crossed the threshold is searched exactly a little longer, which is never wrong.
_SIZE_SECONDS = 10.0
_sizes: dict[int, tuple[float, bool]] = {}


def bank_is_small(bank: Bank) -> bool:
    now = time.monotonic()
    known = _sizes.get(bank.pk)
    if known is None or now - known[0] > _SIZE_SECONDS:
        with connection.cursor() as cursor:
            cursor.execute("SELECT doc_count FROM beliefs_banktextstats WHERE bank_id = %s", [bank.pk])
            row = cursor.fetchone()
        known = (now, (row[0] if row else 0) <= settings.MEMORYHUB["EXACT_SEARCH_BELOW"])
        _sizes[bank.pk] = known
    return known[1]


def _keyword_channel(*, run: bool, bank, query, limit, scope):
    """The query's weighted terms (reranking needs them) and, when asked, the keyword channel's hits."""
    terms = keyword.query_terms(bank=bank, text=query)
    if not run:
        return terms, []
    return terms, keyword.search(bank=bank, query_text=query, limit=limit, terms=terms, scope=scope)


def _submit_derived(request: RecallRequest, batch: ChannelBatch, *, query_vector: np.ndarray, vector: str, exact: bool):
    """Beliefs, facts and plays close to the query, when any of those kinds is asked for."""
    kinds = tuple(kind for kind in ("belief", "fact", "play") if kind in request.options.kinds)
    if not kinds:
        return Done([])
    return batch.submit(
        "derived",
        derived.search,
        bank=request.bank,
        query_vector=query_vector,
        limit=settings.MEMORYHUB["RECALL_CANDIDATES_PER_CHANNEL"],
        as_of=request.as_of,
        kinds=kinds,
        exact=exact,
        vector=vector,
    )


@dataclass
class Ranking:
    """The pool's rows and, in final order (duplicates collapsed), the positions of those to pack."""

    rows: PoolRows
    fused: Fused
    fused_at: np.ndarray  # per row: its position in ``fused``, -1 for an added thread neighbour
    order: np.ndarray
    scores: np.ndarray
    reranked: bool
    dense: np.ndarray | None = None
    context: np.ndarray | None = None
    absorbed: dict[int, list[int]] = field(default_factory=dict)
    fetched: int = -1  # rows from here on were fetched by the second hop (-1: none fetched)

    def dense_by_id(self) -> dict[int, float]:
        if self.dense is None:
            return {}
        return dict(zip(self.rows.ids, self.dense.tolist(), strict=True))


def rank(request: RecallRequest, gathered: Gathered, batch: ChannelBatch) -> Ranking:
    """Fuse the channels' lists (RRF), then rerank the pool and collapse near-duplicates."""
    policy = request.bank.policy if isinstance(request.bank.policy, dict) else {}
    fused = fuse(gathered.ranked, k=settings.MEMORYHUB["RRF_K"], weights=policy.get("channel_weights"))
    fused = fused.head(2 * gathered.limit)
    reranked = bool(request.options.rerank and len(fused))
    with batch.timed("pool"):
        rows = pool_rows(
            gathered.scope,
            fused.ids.tolist(),
            terms=gathered.terms if reranked else None,
            neighbours=reranked,
            dimensions=settings.MEMORYHUB["EMBEDDING_DIMENSIONS"],
        )
    at = {int(pk): index for index, pk in enumerate(fused.ids)}
    fused_at = np.array([at.get(pk, -1) for pk in rows.ids], dtype=np.int64)
    in_pool = fused_at >= 0
    fusion = np.where(in_pool, fused.scores[fused_at], 0.0)
    if not reranked:
        return Ranking(rows, fused, fused_at, order=np.arange(len(rows)), scores=fusion, reranked=False)
    dense = (rows.vectors @ gathered.query_vector).astype(np.float64)
    cross = None
    if settings.MEMORYHUB["RERANK_MODEL"]:
        cross = cross_encoder_scores(request.query, rows.texts)
    graph_votes = _channel_column(fused, fused_at, "graph", raw=True)
    temporal_votes = _channel_column(fused, fused_at, "temporal", raw=False)
    speaker_weight = settings.MEMORYHUB["RECALL_SUBJECT_WEIGHT"]
    named = speaker_weight * subject_named(request.query, rows.subjects) if speaker_weight else 0.0
    ceiling = settings.MEMORYHUB["RECALL_LEXICAL_CEILING"] * sum(gathered.terms.idf.values())

    def rescore(dense_column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scores, context = rerank_scores(
            dense=dense_column,
            lexical=rows.lexical,
            fusion=fusion,
            graph=graph_votes,
            temporal=temporal_votes,
            previous=rows.previous,
            following=rows.following,
            weights=policy.get("rerank_weights"),
            cross_scores=cross,
            lexical_ceiling=ceiling,
        )
        # The question names who said it (subject signal): that person's own turns first among equals.
        return scores + named, context

    scores, context = rescore(dense)
    scores, refined, context = refine(
        query=request.query,
        bank_id=request.bank.pk,
        query_vector=gathered.query_vector,
        rows=rows,
        candidates=in_pool,
        first=(scores, dense, context),
        rescore=rescore,
        batch=batch,
    )
    fetched = len(rows)
    if settings.MEMORYHUB["RECALL_HOP_FETCH"] > 0 and len(scores) > HOP_SOURCES:
        with batch.timed("fetch"):
            found, leads = _fetch(request, gathered, rows, in_pool, scores)
        if len(found):
            near = (found.vectors @ gathered.query_vector).astype(np.float64)
            # Below direct hits: a fetched episode scores its lead, at most just under the weakest source.
            weakest = float(scores[top_positions(scores, in_pool, HOP_SOURCES)].min())
            leads = np.minimum(leads, np.nextafter(weakest, -np.inf))
            rows, scores = rows.extended(found), np.concatenate([scores, leads])
            dense, refined = np.concatenate([dense, near]), np.concatenate([refined, near])
            context, fusion = (
                np.concatenate([context, np.zeros(len(found))]),
                np.concatenate([fusion, np.zeros(len(found))]),
            )
            fused_at = np.concatenate([fused_at, np.full(len(found), -1, dtype=np.int64)])
    order = rank_order(scores, fusion, np.asarray(rows.ids, dtype=np.int64))
    order, absorbed = duplicates_of(order, rows.vectors, rows.texts)
    order, absorbed, scores = latest_faces(order, absorbed, scores, rows.occurred_at)
    coverage = settings.MEMORYHUB["RECALL_COVERAGE"]
    order = cover(order, scores, rows.vectors, coverage, refined, neighbours=(rows.previous, rows.following))
    return Ranking(
        rows, fused, fused_at, order, scores, True, dense=dense, context=context, absorbed=absorbed, fetched=fetched
    )


def _fetch(request: RecallRequest, gathered: Gathered, rows: PoolRows, in_pool: np.ndarray, scores: np.ndarray):
    """The second hop fetches: episodes of other threads that use a rare word of the best items the question does not
    use (``pool_fetch``, one read), with the lead that reaches each."""
    sources = top_positions(scores, in_pool, HOP_SOURCES)
    return pool_fetch(
        gathered.scope,
        sources=[rows.ids[i] for i in sources],
        source_scores=scores[sources].tolist(),
        exclude=rows.ids,
        terms=gathered.terms,
        limit=settings.MEMORYHUB["RECALL_HOP_FETCH"],
        dimensions=settings.MEMORYHUB["EMBEDDING_DIMENSIONS"],
    )


def _channel_column(fused: Fused, fused_at: np.ndarray, channel: str, *, raw: bool) -> np.ndarray:
    """Per row: that channel's own score (``raw``) or whether it found the row (1.0/0.0); 0 for added rows."""
    if channel not in fused.channels:
        return np.zeros(len(fused_at))
    c = fused.channels.index(channel)
    values = fused.raw[:, c] if raw else (fused.ranks[:, c] > 0).astype(np.float64)
    return np.where(fused_at >= 0, values[fused_at], 0.0)


@dataclass(frozen=True)
class Packed:
    items: tuple[PackedItem, ...]
    packing: Packing
    candidates: int


def pack(request: RecallRequest, gathered: Gathered, ranking: Ranking) -> Packed:
    """Place beliefs and facts among the episodes, then fill the budget in order."""
    rows = ranking.rows
    drafts = []
    if "episode" in request.options.kinds:
        order = ranking.order
        short = settings.MEMORYHUB["RECALL_NEIGHBOUR_TOKENS"]
        if short > 0 and ranking.reranked:
            order = with_neighbours(order, rows.texts, rows.subjects, rows.tokens, rows.previous, rows.following, short)
        drafts = [
            Draft(episode_id=rows.ids[i], position=int(i), text=rows.texts[i], tokens=int(rows.tokens[i]))
            for i in order
        ]
    derived_hits = gathered.derived.result()
    if derived_hits:
        covers = derived_coverage(bank=request.bank, hits=derived_hits, episode_ids=[d.episode_id for d in drafts])
        drafts = place_derived(drafts, derived_hits, ranking.dense_by_id(), covers)

    def trim(draft: Draft, room: int) -> Draft | None:
        if draft.derived is not None or draft.tokens < MIN_TRIM_SOURCE_TOKENS:
            return None
        passage = best_passage(draft.text, query=request.query, max_tokens=room, count_tokens=count_tokens)
        if passage is None:
            return None
        return dataclasses.replace(draft, text=passage, tokens=count_tokens(passage), trimmed=True)

    packing = pack_greedy(drafts, budget_tokens=request.budget_tokens, cost=lambda draft: draft.tokens, trim=trim)
    items = tuple(
        derived_item(draft) if draft.derived is not None else episode_item(draft, ranking) for draft in packing.chosen
    )
    return Packed(items=items, packing=packing, candidates=len(drafts))
