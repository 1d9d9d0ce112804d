"""Recall's three stages: ``gather`` runs the channels, ``rank`` fuses and reranks, ``pack`` fills the budget.

Each stage reads what the one before produced (``Gathered``, ``Ranking``) and submits its
database reads through the recall's ``ChannelBatch``, which times every one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from django.conf import settings

from banks.models import Bank
from beliefs.channels import derived, graph, keyword, recency, semantic, temporal
from beliefs.engine.fusion import reciprocal_rank_fusion
from beliefs.engine.packing import MIN_TRIM_SOURCE_TOKENS, Packing, best_passage, pack_greedy
from beliefs.engine.rerank import Ranked, collapse_duplicates, keep_order, rerank
from beliefs.engine.temporal import TimeRange, names_time
from beliefs.engine.types import FusedCandidate, Hit, PackedItem, RecallFilters
from beliefs.selectors.beliefs import derived_coverage
from beliefs.selectors.episodes import (
    episode_citations,
    episode_texts,
    episode_texts_and_vectors,
    episode_thread_neighbours,
    episodes_matching,
    ids_in,
)
from beliefs.services.recall.options import RecallOptions, candidates_per_channel
from beliefs.services.recall.placement import Draft, derived_item, episode_item, place_derived
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

    @property
    def scope(self) -> dict:
        """The arguments every channel takes."""
        return {"bank": self.bank, "filters": self.filters, "as_of": self.as_of}


@dataclass
class Gathered:
    """What the channels found: ranked hits per channel, the query's terms and time, derived items to come."""

    query_vector: np.ndarray
    limit: int
    terms: keyword.QueryTerms
    ranked: dict[str, list[Hit]]
    derived: object  # a future of derived.search's hits: resolved by ``pack``, so it overlaps ``rank``
    reference: datetime | None
    ranges: list[TimeRange] = field(default_factory=list)


@dataclass
class Ranking:
    """The candidates in final order, with the text and token count of each and its similarity to the query."""

    ordered: list[Ranked]
    texts: dict[int, tuple[str, int]]
    dense: dict[int, float]


def gather(request: RecallRequest, batch: ChannelBatch) -> Gathered:
    """Embed the query, then run every asked-for channel side by side."""
    options, scope = request.options, request.scope
    limit = candidates_per_channel(request.budget_tokens)
    with batch.timed("embed"):  # first: the model wants both cores, and the channels need its vector anyway
        query_vector = embed_query(request.query)
    exact = semantic.bank_is_small(request.bank)  # one read decides exact vs index search for every vector channel
    # The reference time costs a query; only a query with a time expression needs it.
    reference_future = (
        batch.submit("reference", temporal.reference_time, bank=request.bank, now=options.now, as_of=request.as_of)
        if names_time(request.query)
        else Done(options.now)
    )
    keyword_future = batch.submit(
        "keyword", _keyword_channel, run="keyword" in options.channels, query=request.query, limit=limit, **scope
    )
    pending = {}
    if "semantic" in options.channels:
        pending["semantic"] = batch.submit(
            "semantic", semantic.search, query_vector=query_vector, limit=limit, exact=exact, **scope
        )
    if "graph" in options.channels:
        pending["graph"] = batch.submit("graph", graph.search, query_text=request.query, limit=limit, **scope)
    if "recent" in options.channels:
        pending["recent"] = batch.submit("recent", recency.search, limit=limit, **scope)
    derived_future = _submit_derived(request, batch, query_vector=query_vector, exact=exact)
    reference = reference_future.result()
    ranges = temporal.query_ranges(request.query, reference)
    if "temporal" in options.channels:
        pending["temporal"] = batch.submit(
            "temporal",
            temporal.search,
            query_text=request.query,
            query_vector=query_vector,
            limit=limit,
            ranges=ranges,
            exact=exact,
            **scope,
        )
    terms, keyword_hits = keyword_future.result()
    ranked = {name: future.result() for name, future in pending.items()}
    if "keyword" in options.channels:
        ranked["keyword"] = keyword_hits
    return Gathered(query_vector, limit, terms, ranked, derived_future, reference, ranges)


def _keyword_channel(*, run: bool, bank, query, limit, filters, as_of):
    """The query's weighted terms (reranking needs them) and, when asked, the keyword channel's hits."""
    terms = keyword.query_terms(bank=bank, text=query)
    if not run:
        return terms, []
    return terms, keyword.search(bank=bank, query_text=query, limit=limit, terms=terms, filters=filters, as_of=as_of)


def _submit_derived(request: RecallRequest, batch: ChannelBatch, *, query_vector: np.ndarray, exact: bool):
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
    )


def rank(request: RecallRequest, gathered: Gathered, batch: ChannelBatch) -> Ranking:
    """Fuse the channels' lists (RRF), then rerank the pool and collapse near-duplicates."""
    policy = request.bank.policy if isinstance(request.bank.policy, dict) else {}
    fused = reciprocal_rank_fusion(
        gathered.ranked, k=settings.MEMORYHUB["RRF_K"], weights=policy.get("channel_weights")
    )
    pool = fused[: 2 * gathered.limit]
    if not (request.options.rerank and pool):
        ids = [candidate.item_id for candidate in pool]
        return Ranking(ordered=keep_order(pool), texts=episode_texts(bank=request.bank, ids=ids), dense={})
    pool, neighbours = _with_thread_neighbours(request, pool)
    ids = [candidate.item_id for candidate in pool]
    # The pool's rows and BM25 scores are independent reads: fetch them side by side.
    rows_future = batch.submit("texts", episode_texts_and_vectors, bank=request.bank, ids=ids)
    lexical_future = batch.submit(
        "lexical", keyword.scores_for, bank=request.bank, terms=gathered.terms, episode_ids=ids
    )
    rows = rows_future.result()
    texts = {pk: (text, tokens) for pk, (text, tokens, _) in rows.items()}
    vectors = {pk: vector for pk, (_, _, vector) in rows.items()}
    lexical = lexical_future.result()
    dense = np.array([float(vectors[pk] @ gathered.query_vector) if pk in vectors else 0.0 for pk in ids])
    cross = None
    if settings.MEMORYHUB["RERANK_MODEL"]:
        cross = cross_encoder_scores(request.query, [texts.get(pk, ("", 0))[0] for pk in ids])
    reranked = rerank(
        pool,
        dense=dense,
        lexical=lexical,
        weights=policy.get("rerank_weights"),
        cross_scores=cross,
        neighbours=neighbours,
    )
    ordered = collapse_duplicates(reranked, vectors, {pk: text for pk, (text, _) in texts.items()})
    return Ranking(ordered=ordered, texts=texts, dense=dict(zip(ids, dense.tolist(), strict=True)))


def _with_thread_neighbours(request: RecallRequest, pool: list[FusedCandidate]):
    """Add the thread neighbours of pool candidates (that pass the filters) as ``context`` candidates."""
    bank = request.bank
    neighbours = episode_thread_neighbours(bank=bank, ids=[candidate.item_id for candidate in pool])
    in_pool = {candidate.item_id for candidate in pool}
    missing = {pk for pair in neighbours.values() for pk in pair if pk is not None and pk not in in_pool}
    if missing:
        allowed = episodes_matching(**request.scope).filter(pk__in=ids_in(missing))
        pool = pool + [
            FusedCandidate(item_id=pk, score=0.0, channels=("context",))
            for pk in sorted(allowed.values_list("id", flat=True))
        ]
    return pool, neighbours


@dataclass(frozen=True)
class Packed:
    items: tuple[PackedItem, ...]
    packing: Packing
    candidates: int


def pack(request: RecallRequest, gathered: Gathered, ranking: Ranking) -> Packed:
    """Place beliefs and facts among the episodes, fill the budget in order, then read citations for what fit."""
    texts = ranking.texts
    drafts = [
        Draft(ranked=r, text=texts[r.candidate.item_id][0], tokens=texts[r.candidate.item_id][1])
        for r in ranking.ordered
        if r.candidate.item_id in texts and "episode" in request.options.kinds
    ]
    derived_hits = gathered.derived.result()
    if derived_hits:
        covers = derived_coverage(bank=request.bank, hits=derived_hits, episode_ids=[d.episode_id for d in drafts])
        drafts = place_derived(drafts, derived_hits, ranking.dense, covers)

    def trim(draft: Draft, room: int) -> Draft | None:
        if draft.derived is not None or draft.tokens < MIN_TRIM_SOURCE_TOKENS:
            return None
        passage = best_passage(draft.text, query=request.query, max_tokens=room, count_tokens=count_tokens)
        if passage is None:
            return None
        return Draft(ranked=draft.ranked, text=passage, tokens=count_tokens(passage), trimmed=True)

    packing = pack_greedy(drafts, budget_tokens=request.budget_tokens, cost=lambda draft: draft.tokens, trim=trim)
    details = episode_citations(bank=request.bank, ids=[d.episode_id for d in packing.chosen if d.ranked])
    items = tuple(
        derived_item(draft) if draft.derived is not None else episode_item(draft, details[draft.episode_id])
        for draft in packing.chosen
        if draft.derived is not None or draft.episode_id in details
    )
    return Packed(items=items, packing=packing, candidates=len(drafts))
