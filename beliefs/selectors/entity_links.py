"""Which entities the episodes of a recall's pool share with its best items (the second hop's read)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection


@dataclass(frozen=True)
class SharedEntities:
    """``links``: (episode id, entity id) for every pool episode mentioning an entity a source mentions;
    ``counts``/``keys``: those entities' episode counts and keys; ``documents``: the bank's episode count."""

    links: list[tuple[int, int]]
    counts: dict[int, int]
    keys: dict[int, str]
    documents: int


def entities_shared(*, bank_id: int, sources: list[int], pool: list[int]) -> SharedEntities:
    """Links from the entities the ``sources`` episodes mention to the ``pool`` episodes that mention them too."""
    if not sources:
        return SharedEntities([], {}, {}, 0)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT l.episode_id, l.entity_id, n.episode_count, n.key FROM beliefs_episodeentity l"
            " JOIN beliefs_entity n ON n.id = l.entity_id"
            " WHERE l.bank_id = %s AND l.episode_id = ANY(%s::bigint[]) AND l.entity_id IN ("
            "   SELECT s.entity_id FROM beliefs_episodeentity s"
            "   WHERE s.bank_id = %s AND s.episode_id = ANY(%s::bigint[]))",
            [bank_id, list(pool), bank_id, list(sources)],
        )
        rows = cursor.fetchall()
        cursor.execute("SELECT doc_count FROM beliefs_banktextstats WHERE bank_id = %s", [bank_id])
        documents = cursor.fetchone()
    return SharedEntities(
        links=[(episode, entity) for episode, entity, _, _ in rows],
        counts={entity: count for _, entity, count, _ in rows},
        keys={entity: key for _, entity, _, key in rows},
        documents=documents[0] if documents else 0,
    )
