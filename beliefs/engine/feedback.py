"""What the first ranking teaches the second: pseudo-relevance feedback and a second hop over entities.

A question rarely uses the words of every turn that answers it. The best few items of a
first ranking are, most of the time, about what the question is about; two ways of
reading them widen what the question finds, both pure functions over the pool's arrays:

- **Pseudo-relevance feedback** (Rocchio): the query vector moves towards the mean of
  the top items' vectors, ``q' = q + beta * mean(top)``, and the pool's dense similarity
  is measured again against ``q'``. Textbook values (alpha 1, beta 0.75, three items),
  chosen before any measurement.
- **Second hop**: entities the top items mention but the question does not name (a
  place, a person, a title) lead to the other items that mention them, in any session.
  Such an item gains a vote scaled by how rare the entity is (idf) and by the relevance
  of the item that led to it: below a direct hit, above an item nothing leads to.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

FEEDBACK_ITEMS = 3
HOP_SOURCES = 5


def rocchio(query_vector: np.ndarray, vectors: np.ndarray, top: np.ndarray, *, beta: float) -> np.ndarray:
    """``query_vector`` moved towards the mean of ``vectors[top]`` by ``beta``, unit length."""
    if beta <= 0 or not len(top):
        return query_vector
    moved = query_vector.astype(np.float64) + beta * vectors[top].astype(np.float64).mean(axis=0)
    norm = float(np.linalg.norm(moved))
    return (moved / norm).astype(np.float32) if norm > 0 else query_vector


def top_positions(scores: np.ndarray, eligible: np.ndarray, n: int) -> np.ndarray:
    """Positions of the ``n`` best ``scores`` among ``eligible`` rows, best first (ties: lower position)."""
    candidates = np.flatnonzero(eligible)
    if not len(candidates):
        return candidates
    order = candidates[np.lexsort((candidates, -scores[candidates]))]
    return order[:n]


def entity_hop(
    *,
    sources: np.ndarray,
    scores: np.ndarray,
    links: Iterable[tuple[int, int]],
    counts: Mapping[int, int],
    documents: int,
    named: set[int],
    max_share: float = 0.5,
) -> np.ndarray:
    """Per pool row, the second-hop vote in [0, 1].

    ``sources``: positions of the first hop's items; ``links``: (row position, entity id) pairs of the pool;
    ``counts``: each entity's episode count in the bank (``documents`` episodes); ``named``: entities the
    question names (they are direct evidence already). An entity in more than ``max_share`` of the bank (the
    speaker of every turn) is context, not a lead. A row's vote is the best, over the entities it shares with a
    source, of ``idf(entity) / idf(entity seen once)`` times that source's relevance (its score over the best
    source's). The sources themselves get no vote."""
    hop = np.zeros(len(scores))
    if not len(sources) or documents <= 0:
        return hop
    by_row: dict[int, list[int]] = {}
    for row, entity in links:
        by_row.setdefault(row, []).append(entity)
    best = float(scores[sources[0]])
    scale = math.log(1 + documents)
    lead: dict[int, float] = {}  # entity -> strongest vote it carries
    for source in sources.tolist():
        relevance = float(scores[source]) / best if best > 0 else 1.0
        for entity in by_row.get(source, ()):
            count = counts.get(entity, 0)
            if entity in named or count <= 1 or count > max_share * documents:
                continue  # an entity only the source mentions leads nowhere
            vote = relevance * math.log(1 + documents / count) / scale
            lead[entity] = max(lead.get(entity, 0.0), vote)
    if not lead:
        return hop
    for row, entities in by_row.items():
        hop[row] = max((lead.get(entity, 0.0) for entity in entities), default=0.0)
    hop[sources] = 0.0
    return hop
