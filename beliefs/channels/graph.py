"""Graph channel: episodes linked to the entities a query names, plus one hop.

Entities in the query (extracted, or any 1-3 word span matching a stored entity key)
are seeds weighted by idf = ln(1 + N / df): an entity that appears everywhere (the
speaker of every chat turn) barely counts, a ticket id counts a lot. One hop adds the
entities that co-occur most with the seeds, at half weight. Episodes score the sum of
the weights of the entities they mention.
"""

from __future__ import annotations

import math
from datetime import datetime

from django.db.models import Case, Count, FloatField, Sum, Value, When

from banks.models import Bank
from beliefs.engine.entities import query_keys
from beliefs.engine.types import Hit, RecallFilters
from beliefs.models import BankTextStats, Entity, EpisodeEntity
from beliefs.selectors.episodes import episodes_matching

CHANNEL = "graph"
HOP_WEIGHT = 0.5
MAX_HOP_ENTITIES = 5
# An entity in more than this share of episodes is context, not a lead worth following.
_MAX_SEED_SHARE = 0.5
# Bound on the episode links the seeds may bring (rarest seeds first), so big banks stay fast: an
# entity on more episodes than this is background, not a lead.
_LINK_BUDGET = 2000


def seed_entities(*, bank: Bank, query_text: str) -> dict[int, float]:
    """Entity id -> weight for the entities ``query_text`` names."""
    return _seeds(bank, query_text)[0]


def _seeds(bank: Bank, query_text: str) -> tuple[dict[int, float], int]:
    """The seeds and how many episode links they bring."""
    keys = query_keys(query_text)
    if not keys:
        return {}, 0
    documents = BankTextStats.objects.filter(bank=bank).values_list("doc_count", flat=True).first() or 1
    found = Entity.objects.filter(bank=bank, key__in=keys, episode_count__gt=0).values_list("id", "episode_count")
    seeds, linked = {}, 0
    for pk, count in sorted(found, key=lambda row: (row[1], row[0])):  # rarest first
        if count > max(1, _MAX_SEED_SHARE * documents) or linked + count > _LINK_BUDGET:
            break
        seeds[pk] = math.log(1 + documents / count)
        linked += count
    return seeds, linked


def _one_hop(bank: Bank, seeds: dict[int, float], room: int) -> dict[int, float]:
    """Entities that co-occur most with the seeds and still fit in ``room`` episode links."""
    seed_episodes = EpisodeEntity.objects.filter(bank=bank, entity_id__in=seeds).values("episode_id")
    neighbours = (
        EpisodeEntity.objects.filter(bank=bank, episode_id__in=seed_episodes, entity__episode_count__lte=room)
        .exclude(entity_id__in=seeds)
        .values("entity_id", "entity__episode_count")
        .annotate(together=Count("episode_id"))
        .order_by("-together", "entity_id")[: 4 * MAX_HOP_ENTITIES]
    )
    strongest = max(seeds.values())
    hops = {}
    for row in neighbours:
        if len(hops) == MAX_HOP_ENTITIES or row["entity__episode_count"] > room:
            continue
        hops[row["entity_id"]] = HOP_WEIGHT * strongest
        room -= row["entity__episode_count"]
    return hops


def search(
    *, bank: Bank, query_text: str, limit: int, filters: RecallFilters | None = None, as_of: datetime | None = None
) -> list[Hit]:
    """Up to ``limit`` episodes mentioning the query's entities (or their neighbours), strongest first."""
    seeds, linked = _seeds(bank, query_text)
    if not seeds:
        return []
    # Hop only when the named entities lead to few episodes: broaden thin evidence, not rich.
    hops = _one_hop(bank, seeds, room=_LINK_BUDGET - linked) if linked < limit else {}
    weights = {**hops, **seeds}
    weight = Case(
        *[When(entity_id=pk, then=Value(w)) for pk, w in weights.items()], default=Value(0.0), output_field=FloatField()
    )
    links = EpisodeEntity.objects.filter(bank=bank, entity_id__in=weights)
    if as_of is not None or (filters is not None and filters != RecallFilters()):
        links = links.filter(episode_id__in=episodes_matching(bank=bank, filters=filters, as_of=as_of).values("id"))
    rows = (
        links.values("episode_id")
        .annotate(score=Sum(weight))
        .order_by("-score", "-episode_id")
        .values_list("episode_id", "score")[:limit]
    )
    return [Hit(item_id=pk, channel=CHANNEL, rank=rank, score=float(score)) for rank, (pk, score) in enumerate(rows, 1)]
