"""Index new episodes for the graph, temporal and keyword channels; undo it before deletion.

Runs inside the retain transaction, so an episode is fully searchable — entity links,
time mentions, term statistics — the moment retain returns. Writes touch shared
per-bank rows (entities, term counts) in key order, so concurrent retains into one bank
queue behind each other instead of deadlocking.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime

from django.db import connection

from banks.models import Bank
from beliefs.engine.entities import extract_entities
from beliefs.engine.temporal import mentions_time, parse_time_ranges
from beliefs.models import Episode, EpisodeEntity

_MAX_LEXEME = 255
_MAX_ALIASES = 20


def episodes_index(*, bank: Bank, episode_ids: list[int], index_time: bool = True) -> None:
    """Link ``episode_ids`` (new episodes of ``bank``) to entities, time ranges and term statistics.

    ``index_time=False`` when the episodes were inserted with ``episode_time_fields`` already:
    updating every new row again cost a second insert into each of the table's indexes
    (the HNSW one included) and a dead row version per episode.
    """
    if not episode_ids:
        return
    episodes = list(
        Episode.objects.filter(bank=bank, pk__in=episode_ids).only("id", "content", "occurred_at").order_by("id")
    )
    if index_time:
        _index_time(episodes)
    _index_entities(bank, episodes)
    _adjust_term_stats(bank, [episode.pk for episode in episodes], sign=1)


def episodes_unindex(*, bank: Bank, episode_ids: list[int]) -> None:
    """Remove ``episode_ids`` from entity counts and term statistics (call before deleting them)."""
    if not episode_ids:
        return
    _adjust_term_stats(bank, episode_ids, sign=-1)
    counts = Counter(
        EpisodeEntity.objects.filter(bank=bank, episode_id__in=episode_ids).values_list("entity_id", flat=True)
    )
    with connection.cursor() as cursor:
        for entity_id, count in sorted(counts.items()):
            cursor.execute(
                "UPDATE beliefs_entity SET episode_count = GREATEST(episode_count - %s, 0) WHERE id = %s",
                [count, entity_id],
            )
        EpisodeEntity.objects.filter(bank=bank, episode_id__in=episode_ids).delete()
        cursor.execute(
            "DELETE FROM beliefs_entity WHERE bank_id = %s AND episode_count = 0 AND id = ANY(%s)",
            [bank.pk, sorted(counts)],
        )


def episode_time_fields(content: str, occurred_at: datetime) -> dict:
    """The time an episode's text refers to: ``mentions_time``, ``mentioned_start``, ``mentioned_end``."""
    ranges = parse_time_ranges(content, occurred_at)
    return {
        "mentions_time": bool(ranges) or mentions_time(content),
        "mentioned_start": min((r.start for r in ranges), default=None),
        "mentioned_end": max((r.end for r in ranges), default=None),
    }


# The fields ``episode_time_fields`` fills, for an update that writes them.
TIME_FIELDS = ("mentions_time", "mentioned_start", "mentioned_end")


def episode_time_set(episode: Episode) -> None:
    """Set ``episode``'s time fields from its ``content`` and ``occurred_at`` (not saved)."""
    for name, value in episode_time_fields(episode.content, episode.occurred_at).items():
        setattr(episode, name, value)


def _index_time(episodes: list[Episode]) -> None:
    for episode in episodes:
        episode_time_set(episode)
    Episode.objects.bulk_update(episodes, TIME_FIELDS, batch_size=500)


def _index_entities(bank: Bank, episodes: list[Episode]) -> None:
    mentions: dict[int, list] = {episode.pk: extract_entities(episode.content) for episode in episodes}
    first_seen: dict[str, tuple[str, str]] = {}
    spellings: dict[str, set[str]] = {}
    frequency: Counter = Counter()
    for found in mentions.values():
        for entity in found:
            first_seen.setdefault(entity.key, (entity.name, entity.kind))
            spellings.setdefault(entity.key, set()).add(entity.name)
            frequency[entity.key] += 1
    if not frequency:
        return
    keys = sorted(frequency)
    aliases = [json.dumps(sorted(spellings[k] - {first_seen[k][0]})[:_MAX_ALIASES]) for k in keys]
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO beliefs_entity (tenant_id, bank_id, key, name, kind, aliases, episode_count, created_at)
            SELECT %s, %s, k, n, kd, a::jsonb, c, now()
            FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::int[]) AS t(k, n, kd, a, c)
            ON CONFLICT (bank_id, key) DO UPDATE SET
                episode_count = beliefs_entity.episode_count + EXCLUDED.episode_count,
                aliases = CASE
                    WHEN jsonb_array_length(beliefs_entity.aliases) >= %s THEN beliefs_entity.aliases
                    ELSE (
                        SELECT coalesce(jsonb_agg(DISTINCT spelling ORDER BY spelling), '[]'::jsonb)
                        FROM jsonb_array_elements_text(
                            beliefs_entity.aliases || EXCLUDED.aliases || to_jsonb(ARRAY[EXCLUDED.name])
                        ) AS spelling
                        WHERE spelling <> beliefs_entity.name
                    ) END
            RETURNING id, key
            """,
            [
                bank.tenant_id,
                bank.pk,
                keys,
                [first_seen[k][0] for k in keys],
                [first_seen[k][1] for k in keys],
                aliases,
                [frequency[k] for k in keys],
                _MAX_ALIASES,
            ],
        )
        ids = dict((key, pk) for pk, key in cursor.fetchall())
    links = [
        EpisodeEntity(tenant_id=bank.tenant_id, bank_id=bank.pk, episode_id=episode_id, entity_id=ids[entity.key])
        for episode_id, found in mentions.items()
        for entity in found
    ]
    EpisodeEntity.objects.bulk_create(links, ignore_conflicts=True, batch_size=1000)


def _adjust_term_stats(bank: Bank, episode_ids: list[int], *, sign: int) -> None:
    # ts_stat() takes the text of a query; the ids are integers we hold, never user input.
    id_list = ",".join(str(int(pk)) for pk in episode_ids)
    documents = f"SELECT search_vector FROM beliefs_episode WHERE bank_id = {int(bank.pk)} AND id IN ({id_list})"
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO beliefs_bankterm (tenant_id, bank_id, lexeme, doc_count)
            SELECT %s, %s, word, %s * ndoc FROM ts_stat(%s) WHERE length(word) <= %s ORDER BY word
            ON CONFLICT (bank_id, lexeme) DO UPDATE SET doc_count = beliefs_bankterm.doc_count + EXCLUDED.doc_count
            """,
            [bank.tenant_id, bank.pk, sign, documents, _MAX_LEXEME],
        )
        cursor.execute(
            f"""
            INSERT INTO beliefs_banktextstats (tenant_id, bank_id, doc_count, lexeme_total)
            SELECT %s, %s, %s * count(*), %s * coalesce(sum(length(search_vector)), 0)
            FROM beliefs_episode WHERE bank_id = {int(bank.pk)} AND id IN ({id_list})
            ON CONFLICT (bank_id) DO UPDATE SET
                doc_count = beliefs_banktextstats.doc_count + EXCLUDED.doc_count,
                lexeme_total = beliefs_banktextstats.lexeme_total + EXCLUDED.lexeme_total
            """,
            [bank.tenant_id, bank.pk, sign, sign],
        )
        if sign < 0:
            cursor.execute(
                "DELETE FROM beliefs_bankterm WHERE bank_id = %s AND doc_count <= 0"
                " AND lexeme IN (SELECT word FROM ts_stat(%s))",
                [bank.pk, documents],
            )
