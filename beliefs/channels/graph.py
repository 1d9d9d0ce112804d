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

from django.conf import settings
from django.db import connection

from banks.models import Bank
from beliefs.channels.filters import EpisodeScope, episode_scope, id_array
from beliefs.engine.entities import query_keys
from beliefs.engine.types import Hit, RecallFilters

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
    return _seeds(bank.pk, query_text)[0]


def _seeds(bank_id: int, query_text: str) -> tuple[dict[int, float], int]:
    """The seeds and how many episode links they bring: entities of the kinds ``RECALL_GRAPH_SEED_KINDS`` names
    (every kind when empty)."""
    keys = query_keys(query_text)
    if not keys:
        return {}, 0
    kinds = list(settings.MEMORYHUB["RECALL_GRAPH_SEED_KINDS"])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT n.id, n.episode_count, coalesce(s.doc_count, 0) FROM beliefs_entity n"
            " LEFT JOIN beliefs_banktextstats s ON s.bank_id = n.bank_id"
            " WHERE n.bank_id = %s AND n.key = ANY(%s) AND n.episode_count > 0"
            " AND (cardinality(%s::text[]) = 0 OR n.kind = ANY(%s::text[]))",
            [bank_id, sorted(keys), kinds, kinds],
        )
        found = cursor.fetchall()
    documents = (found[0][2] if found else 0) or 1
    seeds, linked = {}, 0
    for pk, count, _ in sorted(found, key=lambda row: (row[1], row[0])):  # rarest first
        if count > max(1, _MAX_SEED_SHARE * documents) or linked + count > _LINK_BUDGET:
            break
        seeds[pk] = math.log(1 + documents / count)
        linked += count
    return seeds, linked


def _one_hop(bank_id: int, seeds: dict[int, float], room: int) -> dict[int, float]:
    """Entities that co-occur most with the seeds and still fit in ``room`` episode links."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT l.entity_id, n.episode_count, count(l.episode_id) AS together"
            " FROM beliefs_episodeentity l JOIN beliefs_entity n ON n.id = l.entity_id"
            " WHERE l.bank_id = %s AND n.episode_count <= %s AND NOT (l.entity_id = ANY(%s::bigint[]))"
            " AND l.episode_id IN (SELECT s.episode_id FROM beliefs_episodeentity s"
            "                      WHERE s.bank_id = %s AND s.entity_id = ANY(%s::bigint[]))"
            " GROUP BY l.entity_id, n.episode_count ORDER BY together DESC, l.entity_id LIMIT %s",
            [bank_id, room, id_array(seeds), bank_id, id_array(seeds), 4 * MAX_HOP_ENTITIES],
        )
        neighbours = cursor.fetchall()
    strongest = max(seeds.values())
    hops = {}
    for entity_id, episode_count, _ in neighbours:
        if len(hops) == MAX_HOP_ENTITIES or episode_count > room:
            continue
        hops[entity_id] = HOP_WEIGHT * strongest
        room -= episode_count
    return hops


def search(
    *,
    bank: Bank,
    query_text: str,
    limit: int,
    filters: RecallFilters | None = None,
    as_of: datetime | None = None,
    scope: EpisodeScope | None = None,
) -> list[Hit]:
    """Up to ``limit`` episodes mentioning the query's entities (or their neighbours), strongest first."""
    seeds, linked = _seeds(bank.pk, query_text)
    if not seeds:
        return []
    # Hop only when the named entities lead to few episodes: broaden thin evidence, not rich.
    hops = _one_hop(bank.pk, seeds, room=_LINK_BUDGET - linked) if linked < limit else {}
    weights = {**hops, **seeds}
    scope = scope or episode_scope(bank, filters, as_of)
    narrowed, params = "", []
    if scope.narrowed:
        narrowed = f" AND l.episode_id IN (SELECT e.id FROM beliefs_episode e WHERE {scope.sql})"
        params = list(scope.params)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT l.episode_id, sum(w.weight) AS score FROM beliefs_episodeentity l"
            " JOIN unnest(%s::bigint[], %s::float8[]) AS w(entity_id, weight) ON w.entity_id = l.entity_id"
            f" WHERE l.bank_id = %s{narrowed}"
            " GROUP BY l.episode_id ORDER BY score DESC, l.episode_id DESC LIMIT %s",
            [id_array(weights), list(weights.values()), bank.pk, *params, limit],
        )
        rows = cursor.fetchall()
    return [Hit(item_id=pk, channel=CHANNEL, rank=rank, score=float(score)) for rank, (pk, score) in enumerate(rows, 1)]
