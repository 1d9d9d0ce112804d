"""Rerank the fused candidate pool, then collapse near-duplicates.

Fusion decides *which* candidates are worth a closer look; reranking orders them with
the evidence fusion throws away — the magnitude of each signal. The default reranker
needs no model download: it mixes the dense similarity of every candidate to the query
(min-max normalised over the pool) with its BM25 score (normalised by the best), and
adds small boosts for candidates the temporal and graph channels vouched for. A
cross-encoder can replace the dense/lexical mix when one is configured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from beliefs.engine.types import FusedCandidate

DEFAULT_WEIGHTS = {"dense": 0.5, "lexical": 0.5, "temporal": 0.1, "graph": 0.1, "fusion": 0.05}
DUPLICATE_SIMILARITY = 0.97


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
) -> list[Ranked]:
    """Order ``candidates`` by a weighted mix of normalised signals (highest first).

    ``dense`` holds each candidate's cosine similarity to the query, in candidate order;
    ``cross_scores``, when given, replaces the dense and lexical signals.
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
    scores = base + w["temporal"] * temporal + w["graph"] * graph_n + w["fusion"] * fusion_n
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
            },
        )
        for i in order
    ]


def keep_order(candidates: Sequence[FusedCandidate]) -> list[Ranked]:
    """No reranking: fused order, fused score."""
    return [Ranked(candidate=c, score=c.score) for c in candidates]


def collapse_duplicates(
    ranked: list[Ranked], vectors: dict[int, np.ndarray], threshold: float = DUPLICATE_SIMILARITY
) -> list[Ranked]:
    """Drop items nearly identical (cosine >= ``threshold``) to a higher-ranked item; the
    survivor lists the ids it absorbed."""
    kept: list[Ranked] = []
    kept_vectors: list[np.ndarray] = []
    blank = np.zeros_like(next(iter(vectors.values()))) if vectors else np.zeros(1)
    absorbed: dict[int, list[int]] = {}
    for item in ranked:
        vector = vectors.get(item.candidate.item_id)
        if vector is not None and kept_vectors:
            similarities = np.stack(kept_vectors) @ vector
            best = int(np.argmax(similarities))
            if similarities[best] >= threshold:
                absorbed.setdefault(kept[best].candidate.item_id, []).append(item.candidate.item_id)
                continue
        kept.append(item)
        kept_vectors.append(vector if vector is not None else blank)
    return [
        Ranked(
            candidate=r.candidate,
            score=r.score,
            features=r.features,
            duplicates=tuple(absorbed.get(r.candidate.item_id, ())),
        )
        for r in kept
    ]


CrossEncoderScorer = Callable[[str, list[str]], np.ndarray]
