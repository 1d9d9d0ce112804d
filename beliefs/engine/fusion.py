"""Reciprocal rank fusion: combine ranked lists without comparing their raw scores."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from beliefs.engine.types import FusedCandidate, Hit

DEFAULT_RRF_K = 60


@dataclass(frozen=True)
class Fused:
    """Fused candidates as columns, best first: ``ranks[i, c]`` is candidate i's rank in channel ``channels[c]``
    (0: not found there), ``raw[i, c]`` that channel's own score."""

    ids: np.ndarray
    scores: np.ndarray
    channels: tuple[str, ...]
    ranks: np.ndarray
    raw: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)

    def head(self, n: int) -> Fused:
        return Fused(self.ids[:n], self.scores[:n], self.channels, self.ranks[:n], self.raw[:n])

    def found_by(self, i: int) -> tuple[str, ...]:
        return tuple(sorted(self.channels[c] for c in np.flatnonzero(self.ranks[i])))

    def candidate(self, i: int) -> FusedCandidate:
        found = np.flatnonzero(self.ranks[i])
        return FusedCandidate(
            item_id=int(self.ids[i]),
            score=float(self.scores[i]),
            channels=tuple(sorted(self.channels[c] for c in found)),
            channel_ranks={self.channels[c]: int(self.ranks[i, c]) for c in found},
            channel_scores={self.channels[c]: float(self.raw[i, c]) for c in found},
        )


def fuse(
    ranked_lists: Mapping[str, Iterable[Hit]], *, k: int = DEFAULT_RRF_K, weights: Mapping[str, float] | None = None
) -> Fused:
    """Fuse per-channel rankings: score = sum over channels of weight / (k + rank).

    Ties break on the number of channels that found the item, then on the item id, so the
    order is deterministic. A channel votes once per item, with its best rank.
    """
    channels = tuple(ranked_lists)
    lists = [list(hits) for hits in ranked_lists.values()]
    every = sorted({hit.item_id for hits in lists for hit in hits})
    index = {pk: i for i, pk in enumerate(every)}
    ranks = np.zeros((len(every), len(channels)), dtype=np.int64)
    raw = np.zeros((len(every), len(channels)), dtype=np.float64)
    scores = np.zeros(len(every), dtype=np.float64)
    for c, hits in enumerate(lists):
        weight = 1.0 if weights is None else weights.get(channels[c], 1.0)
        column = np.zeros(len(every), dtype=np.float64)
        for hit in hits:
            i = index[hit.item_id]
            if ranks[i, c]:
                continue  # a channel votes once per item, with its best rank
            ranks[i, c] = hit.rank
            raw[i, c] = hit.score
            column[i] = weight / (k + hit.rank)
        # Added channel by channel, in channel order: the same sums (to the last bit) as adding item by item.
        found = ranks[:, c] > 0
        scores[found] += column[found]
    ids = np.array(every, dtype=np.int64)
    order = np.lexsort((ids, -(ranks > 0).sum(axis=1), -scores))
    return Fused(ids[order], scores[order], channels, ranks[order], raw[order])


def reciprocal_rank_fusion(
    ranked_lists: Mapping[str, Iterable[Hit]], *, k: int = DEFAULT_RRF_K, weights: Mapping[str, float] | None = None
) -> list[FusedCandidate]:
    """``fuse`` as one ``FusedCandidate`` per item, best first."""
    fused = fuse(ranked_lists, k=k, weights=weights)
    return [fused.candidate(i) for i in range(len(fused))]
