"""Reciprocal rank fusion: combine ranked lists without comparing their raw scores."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from beliefs.engine.types import FusedCandidate, Hit

DEFAULT_RRF_K = 60


def reciprocal_rank_fusion(
    ranked_lists: Mapping[str, Iterable[Hit]], *, k: int = DEFAULT_RRF_K, weights: Mapping[str, float] | None = None
) -> list[FusedCandidate]:
    """Fuse per-channel rankings: score = sum over channels of weight / (k + rank).

    Ties break on the number of channels that found the item, then on the item id, so the
    order is deterministic.
    """
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    raw: dict[int, dict[str, float]] = {}
    for channel, hits in ranked_lists.items():
        weight = 1.0 if weights is None else weights.get(channel, 1.0)
        for hit in hits:
            if channel in ranks.get(hit.item_id, {}):
                continue  # a channel votes once per item, with its best rank
            scores[hit.item_id] = scores.get(hit.item_id, 0.0) + weight / (k + hit.rank)
            ranks.setdefault(hit.item_id, {})[channel] = hit.rank
            raw.setdefault(hit.item_id, {})[channel] = hit.score
    fused = [
        FusedCandidate(
            item_id=item_id,
            score=score,
            channels=tuple(sorted(ranks[item_id])),
            channel_ranks=ranks[item_id],
            channel_scores=raw[item_id],
        )
        for item_id, score in scores.items()
    ]
    fused.sort(key=lambda c: (-c.score, -len(c.channels), c.item_id))
    return fused
