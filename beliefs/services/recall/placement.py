"""Where beliefs and facts go among the ranked episodes, and how a packed candidate becomes a response item."""

from __future__ import annotations

import dataclasses

import numpy as np

from beliefs.channels.derived import DerivedHit
from beliefs.engine.rerank import features as rerank_features
from beliefs.engine.types import PackedItem


@dataclasses.dataclass(frozen=True, slots=True)
class Draft:
    """A candidate in packing order: an episode (its row's ``position`` in the pool) or a belief/fact/play."""

    episode_id: int | None
    position: int | None
    text: str
    tokens: int
    trimmed: bool = False
    derived: DerivedHit | None = None
    covered: bool = False  # an episode a packed belief or fact already stands for


def place_derived(drafts: list[Draft], hits: list, dense: dict[int, float], covers: dict) -> list[Draft]:
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
            pk = draft.episode_id
            if pk in sources or dense.get(pk, 0.0) < hit.similarity:
                position = index
                break
        positions.append((position, -hit.similarity, hit, sources))
    positions.sort(key=lambda entry: (entry[0], entry[1]))
    covered = set().union(*(sources for *_, sources in positions))
    result: list[Draft] = []
    queue = iter(positions)
    pending = next(queue, None)
    for index, draft in enumerate(drafts):
        while pending is not None and pending[0] <= index:
            result.append(_derived_draft(pending[2]))
            pending = next(queue, None)
        if draft.episode_id not in covered:
            result.append(draft)
    while pending is not None:
        result.append(_derived_draft(pending[2]))
        pending = next(queue, None)
    result.extend(dataclasses.replace(d, covered=True) for d in drafts if d.episode_id in covered)
    return result


def _derived_draft(hit: DerivedHit) -> Draft:
    return Draft(episode_id=None, position=None, text=hit.text, tokens=hit.tokens, derived=hit)


def derived_item(draft: Draft) -> PackedItem:
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


def _added(ranking, i: int) -> str:
    """What brought an added row: the second hop's fetch, or being a thread neighbour of a candidate."""
    return "hop" if 0 <= ranking.fetched <= i else "context"


def episode_item(draft: Draft, ranking) -> PackedItem:
    """A packed episode with its citation, read from the pool's rows, and what ranking said about it."""
    rows, i = ranking.rows, draft.position
    at = int(ranking.fused_at[i])
    fused = ranking.fused
    found = np.flatnonzero(fused.ranks[at]) if at >= 0 else ()
    features = {}
    if ranking.reranked:
        channel_column = {name: c for c, name in enumerate(fused.channels)}
        graph = fused.raw[at, channel_column["graph"]] if at >= 0 and "graph" in channel_column else 0.0
        found_in_time = at >= 0 and "temporal" in channel_column and fused.ranks[at, channel_column["temporal"]]
        temporal = 1.0 if found_in_time else 0.0
        features = rerank_features(ranking.dense[i], rows.lexical[i], temporal, graph, ranking.context[i])
    return PackedItem(
        item_id=draft.episode_id,
        kind="episode",
        text=draft.text,
        tokens=draft.tokens,
        score=float(ranking.scores[i]),
        channels=tuple(sorted(fused.channels[c] for c in found)) if at >= 0 else (_added(ranking, i),),
        occurred_at=rows.occurred_at[i],
        recorded_at=rows.recorded_at[i],
        source=rows.sources[i],
        subject=rows.subjects[i],
        provenance=rows.provenance[i],
        metadata=rows.metadata_of(i),
        channel_ranks={fused.channels[c]: int(fused.ranks[at, c]) for c in found},
        channel_scores={fused.channels[c]: float(fused.raw[at, c]) for c in found},
        features=features,
        duplicates=tuple(rows.ids[j] for j in ranking.absorbed.get(i, ())),
        trimmed=draft.trimmed,
        flags=rows.flags_of(i),
    )
