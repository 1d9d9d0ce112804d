"""Where beliefs and facts go among the ranked episodes, and how a packed candidate becomes a response item."""

from __future__ import annotations

import dataclasses

from beliefs.channels.derived import DerivedHit
from beliefs.engine.rerank import Ranked
from beliefs.engine.types import PackedItem
from beliefs.selectors.episodes import EpisodeCitation


@dataclasses.dataclass(frozen=True)
class Draft:
    """A ranked candidate with just what packing needs; full rows are read only for what fits."""

    ranked: Ranked | None
    text: str
    tokens: int
    trimmed: bool = False
    derived: DerivedHit | None = None
    covered: bool = False  # an episode a packed belief or fact already stands for

    @property
    def episode_id(self) -> int | None:
        return self.ranked.candidate.item_id if self.ranked is not None else None


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
            result.append(Draft(ranked=None, text=pending[2].text, tokens=pending[2].tokens, derived=pending[2]))
            pending = next(queue, None)
        if draft.episode_id not in covered:
            result.append(draft)
    while pending is not None:
        result.append(Draft(ranked=None, text=pending[2].text, tokens=pending[2].tokens, derived=pending[2]))
        pending = next(queue, None)
    result.extend(dataclasses.replace(d, covered=True) for d in drafts if d.episode_id in covered)
    return result


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


def episode_item(draft: Draft, episode: EpisodeCitation) -> PackedItem:
    candidate = draft.ranked.candidate
    return PackedItem(
        item_id=episode.pk,
        kind="episode",
        text=draft.text,
        tokens=draft.tokens,
        score=draft.ranked.score,
        channels=candidate.channels,
        occurred_at=episode.occurred_at,
        recorded_at=episode.recorded_at,
        source=episode.source,
        subject=episode.subject,
        provenance=episode.provenance,
        metadata=episode.metadata,
        channel_ranks=candidate.channel_ranks,
        channel_scores=candidate.channel_scores,
        features=draft.ranked.features,
        duplicates=draft.ranked.duplicates,
        trimmed=draft.trimmed,
        flags=tuple(episode.injection_flags or ()),
    )
