"""Rerank the fused candidate pool, then collapse near-duplicates.

Fusion decides *which* candidates are worth a closer look; reranking orders them with
the evidence fusion throws away — the magnitude of each signal. The default reranker
needs no model download: it mixes the dense similarity of every candidate to the query
(min-max normalised over the pool) with its BM25 score (normalised by the best), and
adds small boosts for candidates the temporal and graph channels vouched for. A
cross-encoder can replace the dense/lexical mix when one is configured.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from beliefs.engine.types import FusedCandidate

DEFAULT_WEIGHTS = {"dense": 0.5, "lexical": 0.5, "temporal": 0.1, "graph": 0.1, "fusion": 0.05, "context": 0.3}
DUPLICATE_SIMILARITY = 0.97
DUPLICATE_WORD_OVERLAP = 0.85


@dataclass(frozen=True)
class Ranked:
    """A candidate after reranking: its final score, features and collapsed duplicates."""

    candidate: FusedCandidate
    score: float
    features: dict[str, float] = field(default_factory=dict)
    duplicates: tuple[int, ...] = ()


def _normalise(values: np.ndarray) -> np.ndarray:
    if values.size == 0:
        return values
    low, high = float(values.min()), float(values.max())
    return np.zeros_like(values) if high - low < 1e-12 else (values - low) / (high - low)


def rerank(
    candidates: Sequence[FusedCandidate],
    *,
    dense: np.ndarray,
    lexical: dict[int, float],
    weights: dict[str, float] | None = None,
    cross_scores: np.ndarray | None = None,
    neighbours: dict[int, tuple[int | None, int | None]] | None = None,
) -> list[Ranked]:
    """Order ``candidates`` by a weighted mix of normalised signals (highest first).

    ``dense`` holds each candidate's cosine similarity to the query, in candidate order;
    ``cross_scores``, when given, replaces the dense and lexical signals. ``neighbours``
    maps a candidate to the previous and next episode of its thread: a candidate gains
    ``context`` times the stronger neighbour's own score, because in a conversation the
    answer sits next to the turn that matches the question.
    """
    if not candidates:
        return []
    w = {**DEFAULT_WEIGHTS, **(weights or {})}
    ids = [c.item_id for c in candidates]
    lex = np.array([lexical.get(pk, 0.0) for pk in ids], dtype=np.float64)
    lex_n = lex / lex.max() if lex.max() > 0 else lex
    dense_n = _normalise(np.asarray(dense, dtype=np.float64))
    graph = np.array([c.channel_scores.get("graph", 0.0) for c in candidates], dtype=np.float64)
    graph_n = graph / graph.max() if graph.max() > 0 else graph
    temporal = np.array([1.0 if "temporal" in c.channels else 0.0 for c in candidates])
    fusion = np.array([c.score for c in candidates], dtype=np.float64)
    fusion_n = fusion / fusion.max() if fusion.max() > 0 else fusion
    if cross_scores is not None:
        base = (w["dense"] + w["lexical"]) * _normalise(np.asarray(cross_scores, dtype=np.float64))
    else:
        base = w["dense"] * dense_n + w["lexical"] * lex_n
    own = base + w["temporal"] * temporal + w["graph"] * graph_n + w["fusion"] * fusion_n
    position = {pk: index for index, pk in enumerate(ids)}
    context = np.zeros_like(own)
    for index, pk in enumerate(ids):
        around = [position[n] for n in (neighbours or {}).get(pk, ()) if n is not None and n in position]
        if around:
            context[index] = max(own[i] for i in around)
    scores = own + w["context"] * context
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], -fusion[i], ids[i]))
    return [
        Ranked(
            candidate=candidates[i],
            score=float(scores[i]),
            features={
                "dense": round(float(dense[i]), 6),
                "lexical": round(float(lex[i]), 6),
                "temporal": float(temporal[i]),
                "graph": round(float(graph[i]), 6),
                "context": round(float(context[i]), 6),
            },
        )
        for i in order
    ]


def keep_order(candidates: Sequence[FusedCandidate]) -> list[Ranked]:
    """No reranking: fused order, fused score."""
    return [Ranked(candidate=c, score=c.score) for c in candidates]


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[^\W_]+", text.lower()))


def _same_words(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def collapse_duplicates(
    ranked: list[Ranked],
    vectors: dict[int, np.ndarray],
    texts: dict[int, str],
    threshold: float = DUPLICATE_SIMILARITY,
) -> list[Ranked]:
    """Drop items that repeat a higher-ranked item: the same words, or nearly the same
    meaning (cosine >= ``threshold``) with nearly the same words. The survivor lists the
    ids it absorbed. "disk alert on db-01" and "… db-02" are different items."""
    if not ranked:
        return []
    ids = [item.candidate.item_id for item in ranked]
    blank = np.zeros_like(next(iter(vectors.values()))) if vectors else np.zeros(1)
    matrix = np.stack([vectors.get(pk, blank) for pk in ids])
    similarity = matrix @ matrix.T
    # Only pairs this close in meaning can be duplicates: one vectorised comparison, then words for those few.
    close = similarity >= threshold - 0.02
    has_close_above = np.tril(close, -1).any(axis=1)
    words: dict[int, frozenset[str]] = {}

    def words_of(index: int) -> frozenset[str]:
        if index not in words:
            words[index] = _words(texts.get(ids[index], ""))
        return words[index]

    kept: list[int] = []
    is_kept = np.zeros(len(ids), dtype=bool)
    absorbed: dict[int, list[int]] = {}
    for index, pk in enumerate(ids):
        duplicate_of = None
        for other in np.flatnonzero(close[index, :index] & is_kept[:index]) if has_close_above[index] else ():
            overlap = _same_words(words_of(index), words_of(other))
            if overlap == 1.0 or (similarity[index, other] >= threshold and overlap >= DUPLICATE_WORD_OVERLAP):
                duplicate_of = int(other)
                break
        if duplicate_of is None:
            kept.append(index)
            is_kept[index] = True
        else:
            absorbed.setdefault(ids[duplicate_of], []).append(pk)
    return [
        Ranked(
            candidate=ranked[index].candidate,
            score=ranked[index].score,
            features=ranked[index].features,
            duplicates=tuple(absorbed.get(ids[index], ())),
        )
        for index in kept
    ]
