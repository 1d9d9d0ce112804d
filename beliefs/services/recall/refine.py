"""The rank stage's second look: what the first ranking's best items say about the question.

``refine`` runs after the first rerank, on the pool already read (``feedback.py`` holds the
pure parts): pseudo-relevance feedback measures the pool again against the query moved
towards its best items (``RECALL_FEEDBACK``, Rocchio's beta; 0 off), and the second hop
votes for items that mention an entity the best items mention and the question does not
(``RECALL_HOP_WEIGHT``; 0 off). Each is timed as its own span (``feedback``, ``hop``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from django.conf import settings

from beliefs.engine.entities import query_keys
from beliefs.engine.feedback import FEEDBACK_ITEMS, HOP_SOURCES, entity_hop, rocchio, top_positions
from beliefs.selectors.entity_links import entities_shared


def refine(
    *,
    query: str,
    bank_id: int,
    query_vector: np.ndarray,
    rows,
    candidates: np.ndarray,
    first: tuple[np.ndarray, np.ndarray, np.ndarray],
    rescore: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    batch,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``first`` (scores, dense similarities, context feature) after feedback and the second hop. ``candidates``
    marks the pool's own rows (not added thread neighbours); ``rescore`` turns a dense column into scores and
    context the way the first rerank did."""
    scores, dense, context = first
    beta = settings.MEMORYHUB["RECALL_FEEDBACK"]
    if beta > 0 and len(scores) > FEEDBACK_ITEMS:
        with batch.timed("feedback"):
            top = top_positions(scores, candidates, FEEDBACK_ITEMS)
            dense = (rows.vectors @ rocchio(query_vector, rows.vectors, top, beta=beta)).astype(np.float64)
            scores, context = rescore(dense)
    weight = settings.MEMORYHUB["RECALL_HOP_WEIGHT"]
    if weight > 0 and len(scores) > HOP_SOURCES:
        with batch.timed("hop"):
            sources = top_positions(scores, candidates, HOP_SOURCES)
            shared = entities_shared(bank_id=bank_id, sources=[rows.ids[i] for i in sources], pool=rows.ids)
            keys = query_keys(query)
            named = {entity for entity, key in shared.keys.items() if key in keys}
            position = rows.position
            scores = scores + weight * entity_hop(
                sources=sources,
                scores=scores,
                links=[(position[episode], entity) for episode, entity in shared.links if episode in position],
                counts=shared.counts,
                documents=shared.documents,
                named=named,
            )
    return scores, dense, context
