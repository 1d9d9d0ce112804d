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
_WORD = re.compile(r"[^\W_]+")
DUPLICATE_WORD_OVERLAP = 0.85
# Copies whose scores differ by less than this rank alike (rank positions among equal texts differ by ~1e-3).
SAME_SCORE = 0.005


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


def rerank_scores(
    *,
    dense: np.ndarray,
    lexical: np.ndarray,
    fusion: np.ndarray,
    graph: np.ndarray,
    temporal: np.ndarray,
    previous: np.ndarray | None = None,
    following: np.ndarray | None = None,
    weights: dict[str, float] | None = None,
    cross_scores: np.ndarray | None = None,
    lexical_ceiling: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's final score and its ``context`` feature, as arrays in candidate order.

    ``lexical_ceiling``: a BM25 score that counts as a full keyword match (the lexical signal is the score over the
    larger of it and the pool's best), so a pool whose best shares only common words with the query does not get
    the full lexical weight; 0 normalises by the pool's best alone.

    ``previous``/``following`` hold the position of each candidate's thread neighbours among
    the candidates (-1: none there): a candidate gains ``context`` times the stronger
    neighbour's own score, because in a conversation the answer sits next to the turn that
    matches the question.
    """
    w = {**DEFAULT_WEIGHTS, **(weights or {})}
    top = max(float(lexical.max()), lexical_ceiling) if lexical.size else 0.0
    lex_n = lexical / top if top > 0 else lexical
    dense_n = _normalise(np.asarray(dense, dtype=np.float64))
    graph_n = graph / graph.max() if graph.size and graph.max() > 0 else graph
    fusion_n = fusion / fusion.max() if fusion.size and fusion.max() > 0 else fusion
    if cross_scores is not None:
        base = (w["dense"] + w["lexical"]) * _normalise(np.asarray(cross_scores, dtype=np.float64))
    else:
        base = w["dense"] * dense_n + w["lexical"] * lex_n
    own = base + w["temporal"] * temporal + w["graph"] * graph_n + w["fusion"] * fusion_n
    context = np.zeros_like(own)
    for around in (previous, following):
        if around is not None and around.size:
            present = around >= 0
            context[present] = np.maximum(context[present], own[around[present]])
    return own + w["context"] * context, context


def subject_named(query: str, subjects: Sequence[str]) -> np.ndarray:
    """Per candidate: 1.0 when the query names the candidate's subject (who said or is about it), else 0.0.

    A subject names someone by its last part (``user:dana`` is Dana); every word of that name must be a word of the
    query, in any case, a possessive included ("What do Dana's kids like?")."""
    words = set(_WORD.findall(query.lower()))
    named: dict[str, bool] = {}
    values = np.zeros(len(subjects))
    for index, subject in enumerate(subjects):
        if not subject:
            continue
        if subject not in named:
            name = _WORD.findall(subject.rsplit(":", 1)[-1].lower())
            named[subject] = bool(name) and all(part in words for part in name)
        values[index] = 1.0 if named[subject] else 0.0
    return values


def rank_order(scores: np.ndarray, fusion: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Candidate positions best first: by score, then fused score, then id."""
    return np.lexsort((ids, -fusion, -scores))


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
    maps a candidate to the previous and next episode of its thread (see ``rerank_scores``).
    """
    if not candidates:
        return []
    ids = np.array([c.item_id for c in candidates], dtype=np.int64)
    position = {int(pk): index for index, pk in enumerate(ids)}

    def around(side: int) -> np.ndarray:
        pairs = [(neighbours or {}).get(int(pk), (None, None))[side] for pk in ids]
        return np.array([position.get(pk, -1) if pk is not None else -1 for pk in pairs], dtype=np.int64)

    lex = np.array([lexical.get(int(pk), 0.0) for pk in ids], dtype=np.float64)
    graph = np.array([c.channel_scores.get("graph", 0.0) for c in candidates], dtype=np.float64)
    temporal = np.array([1.0 if "temporal" in c.channels else 0.0 for c in candidates])
    fusion = np.array([c.score for c in candidates], dtype=np.float64)
    scores, context = rerank_scores(
        dense=dense,
        lexical=lex,
        fusion=fusion,
        graph=graph,
        temporal=temporal,
        previous=around(0),
        following=around(1),
        weights=weights,
        cross_scores=cross_scores,
    )
    return [
        Ranked(
            candidate=candidates[i],
            score=float(scores[i]),
            features=features(dense[i], lex[i], temporal[i], graph[i], context[i]),
        )
        for i in rank_order(scores, fusion, ids)
    ]


def features(dense, lexical, temporal, graph, context) -> dict[str, float]:
    """The signals behind one candidate's score, as ``explain`` shows them."""
    return {
        "dense": round(float(dense), 6),
        "lexical": round(float(lexical), 6),
        "temporal": float(temporal),
        "graph": round(float(graph), 6),
        "context": round(float(context), 6),
    }


def keep_order(candidates: Sequence[FusedCandidate]) -> list[Ranked]:
    """No reranking: fused order, fused score."""
    return [Ranked(candidate=c, score=c.score) for c in candidates]


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[^\W_]+", text.lower()))


def _same_words(a: frozenset[str], b: frozenset[str]) -> float:
    shared = len(a & b)  # (the union's size from the two sizes: no third set built per pair)
    return shared / (len(a) + len(b) - shared) if a or b else 1.0


def duplicates_of(
    order: np.ndarray, vectors: np.ndarray, texts: Sequence[str], threshold: float = DUPLICATE_SIMILARITY
):
    """Collapse near-duplicates in ``order`` (candidate positions, best first): the positions kept, and for each kept
    position the positions it absorbed.

    An item repeats a higher-ranked one when it has the same words, or nearly the same
    meaning (cosine >= ``threshold``) with nearly the same words. "disk alert on db-01" and
    "… db-02" are different items.
    """
    if not len(order):
        return order, {}
    matrix = vectors[order]
    similarity = matrix @ matrix.T
    # Only pairs this close in meaning can be duplicates: one vectorised comparison, then words for those few.
    close = np.tril(similarity >= threshold - 0.02, -1)
    suspects = np.flatnonzero(close.any(axis=1))
    if not suspects.size:
        return order, {}
    # The words of every position in a close pair, each read once.
    words = {int(i): _words(texts[order[i]]) for i in np.flatnonzero(close.any(axis=0) | close.any(axis=1))}
    dropped = np.zeros(len(order), dtype=bool)
    absorbed: dict[int, list[int]] = {}
    for index in suspects.tolist():
        mine = words[index]
        for other in np.flatnonzero(close[index, :index] & ~dropped[:index]).tolist():
            overlap = _same_words(mine, words[other])
            if overlap == 1.0 or (similarity[index, other] >= threshold and overlap >= DUPLICATE_WORD_OVERLAP):
                dropped[index] = True
                absorbed.setdefault(int(order[other]), []).append(int(order[index]))
                break
    return order[~dropped], absorbed


def latest_faces(order: np.ndarray, absorbed: dict[int, list[int]], scores: np.ndarray, occurred_at: Sequence):
    """Show each collapsed group by its most recent copy among those that score as well as its face: the order, absorbed
    map and scores with faces swapped accordingly (the group keeps its best score).

    Copies that score alike are one memory told several times; its latest telling is the one an agent wants dated,
    and the choice then depends on the copies alone, not on which was stored first. A copy that scores clearly
    better (a question naming its speaker) stays the face.
    """
    if not absorbed:
        return order, absorbed, scores
    order, scores, faces = order.copy(), scores.copy(), {}
    where = {int(position): index for index, position in enumerate(order)}
    for face, members in absorbed.items():
        latest = face
        for member in members:
            if scores[member] >= scores[face] - SAME_SCORE and occurred_at[member] > occurred_at[latest]:
                latest = member
        if latest == face:
            faces[face] = members
            continue
        order[where[face]] = latest
        scores[latest] = max(scores[latest], scores[face])
        faces[latest] = [face, *(member for member in members if member != latest)]
    return order, faces, scores


def cover(
    order: np.ndarray,
    scores: np.ndarray,
    vectors: np.ndarray,
    redundancy: float,
    query_similarity: np.ndarray,
    neighbours: Sequence[np.ndarray] = (),
) -> np.ndarray:
    """``order`` re-ordered for coverage (maximal marginal relevance): each next item is the one with the highest
    ``(1 - redundancy) * relevance - redundancy * excess``, where relevance is its score (min-max normalised over
    ``order``) and excess how much closer it is to an item already placed than to the query
    (``query_similarity``, cosine): an item that says again what a placed item says waits, an item that only
    shares the question's topic with it does not. Thread neighbours (``neighbours``: per candidate, the position
    of its previous or next turn, -1 for none) never count as repeats of each other: next to each other in a
    conversation they are a question and its answer, close in meaning and both worth their tokens.

    A budget then holds the different turns a question needs before a second wording of one it already has.
    ``redundancy`` 0 keeps ``order``."""
    n = len(order)
    if redundancy <= 0 or n < 3:
        return order
    relevance = _normalise(np.asarray(scores, dtype=np.float64)[order])
    to_query = np.asarray(query_similarity, dtype=np.float64)[order]
    matrix = vectors[order].astype(np.float64)
    similarity = matrix @ matrix.T
    if len(neighbours):
        at = np.full(len(scores), -1, dtype=np.int64)
        at[order] = np.arange(n)
        for around in neighbours:
            mine = at[np.asarray(around)[order]]
            pairs = np.flatnonzero((np.asarray(around)[order] >= 0) & (mine >= 0))
            similarity[pairs, mine[pairs]] = -np.inf
            similarity[mine[pairs], pairs] = -np.inf
    closest = np.full(n, -np.inf)
    placed = np.zeros(n, dtype=bool)
    result = np.empty(n, dtype=order.dtype)
    for step in range(n):
        if step == 0:
            pick = 0  # the most relevant item leads whatever else is placed
        else:
            value = (1 - redundancy) * relevance - redundancy * np.maximum(closest - to_query, 0.0)
            value[placed] = -np.inf
            pick = int(np.argmax(value))  # ties go to the earlier (better-ranked) item
        placed[pick] = True
        result[step] = order[pick]
        np.maximum(closest, similarity[pick], out=closest)
    return result


def collapse_duplicates(
    ranked: list[Ranked],
    vectors: dict[int, np.ndarray],
    texts: dict[int, str],
    threshold: float = DUPLICATE_SIMILARITY,
) -> list[Ranked]:
    """``duplicates_of`` over ``Ranked`` items: the survivors list the ids they absorbed."""
    if not ranked:
        return []
    ids = [item.candidate.item_id for item in ranked]
    blank = np.zeros_like(next(iter(vectors.values()))) if vectors else np.zeros(1)
    matrix = np.stack([vectors.get(pk, blank) for pk in ids])
    kept, absorbed = duplicates_of(np.arange(len(ids)), matrix, [texts.get(pk, "") for pk in ids], threshold)
    return [
        Ranked(
            candidate=ranked[index].candidate,
            score=ranked[index].score,
            features=ranked[index].features,
            duplicates=tuple(ids[i] for i in absorbed.get(int(index), ())),
        )
        for index in kept
    ]
