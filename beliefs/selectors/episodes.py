"""Read queries over episodes. Every selector takes an already authorised ``bank``."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import psycopg
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

from banks.models import Bank
from beliefs.engine.types import RecallFilters
from beliefs.models import Episode, Evidence, Fact, RetainBatch


def ids_in(ids) -> RawSQL:
    """``ids`` as one array parameter, for ``pk__in=``: a list of hundreds of ids made a placeholder and a
    prepared value each, which cost recall more to compile than the read itself."""
    return RawSQL("SELECT unnest(%s::bigint[])", [list(ids)])


def episode_list(*, bank: Bank) -> QuerySet[Episode]:
    """Episodes of ``bank``, newest first, without the heavy vector columns."""
    return Episode.objects.filter(bank=bank).defer("embedding", "search_vector").order_by("-occurred_at", "-id")


def episode_list_with_extraction(*, bank: Bank) -> QuerySet[Episode]:
    """``episode_list`` with when each episode was extracted (``episode.extraction``), read in the same query."""
    return episode_list(bank=bank).select_related("extraction")


def episode_get(*, bank: Bank, episode_id: int) -> Episode | None:
    """One episode of ``bank``, or ``None`` (also for another bank's id)."""
    return episode_list_with_extraction(bank=bank).filter(pk=episode_id).first()


def episodes_matching(
    *, bank: Bank, filters: RecallFilters | None = None, as_of: datetime | None = None
) -> QuerySet[Episode]:
    """Episodes of ``bank`` passing the recall filters, as the bank knew them at ``as_of``."""
    queryset = Episode.objects.filter(bank_id=bank.pk)
    if filters is not None:
        if filters.sources:
            queryset = queryset.filter(source__in=filters.sources)
        if filters.subjects:
            queryset = queryset.filter(subject__in=filters.subjects)
        if filters.occurred_after is not None:
            queryset = queryset.filter(occurred_at__gte=filters.occurred_after)
        if filters.occurred_before is not None:
            queryset = queryset.filter(occurred_at__lte=filters.occurred_before)
    if as_of is not None:
        queryset = queryset.filter(recorded_at__lte=as_of)
    return queryset


@dataclass(frozen=True)
class EpisodeCitation:
    """What a recalled episode is cited with: when it happened, where it came from, about whom, its flags."""

    pk: int
    occurred_at: datetime
    recorded_at: datetime
    source: str
    subject: str
    provenance: str
    metadata: dict
    injection_flags: list


def episode_citations(*, bank: Bank, ids: list[int]) -> dict[int, EpisodeCitation]:
    """Citations of episodes of ``bank`` by id (ids of other banks are silently absent).

    Plain rows rather than model instances: recall cites a few dozen episodes per call."""
    if not ids:
        return {}
    fields = [field.name for field in dataclasses.fields(EpisodeCitation)]
    rows = Episode.objects.filter(bank_id=bank.pk, pk__in=ids_in(ids)).values_list(*fields)
    return {row[0]: EpisodeCitation(*row) for row in rows}


def retain_batch_list(*, bank: Bank) -> QuerySet[RetainBatch]:
    """The bank's retain batches, newest first (their items not loaded)."""
    return RetainBatch.objects.filter(bank=bank).defer("items").order_by("-created_at", "-id")


def retain_batch_get(*, bank: Bank, batch_id: int) -> RetainBatch | None:
    """One retain batch of ``bank``, or ``None``."""
    return RetainBatch.objects.filter(bank=bank, pk=batch_id).defer("items").first()


def episode_texts_and_vectors(*, bank: Bank, ids: list[int]) -> dict[int, tuple[str, int, np.ndarray]]:
    """Content, token count and embedding (float32) of episodes of ``bank`` by id: what reranking a pool reads.

    Read in PostgreSQL's binary format (a vector is a 4-byte header, then big-endian float32s):
    parsing the text form of a few hundred 384-dimension vectors costs more than the query.
    """
    if not ids:
        return {}
    from django.db import connection

    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(
            "SELECT id, content, token_count, embedding FROM beliefs_episode WHERE bank_id = %s AND id = ANY(%s)",
            [bank.pk, list(ids)],
            binary=True,
        )
        rows = cursor.fetchall()
    return {
        pk: (content, tokens, np.frombuffer(bytes(raw), dtype=">f4", offset=4).astype(np.float32))
        for pk, content, tokens, raw in rows
    }


def episode_texts(*, bank: Bank, ids: list[int]) -> dict[int, tuple[str, int]]:
    """Content and token count of episodes of ``bank`` by id (the light read packing needs)."""
    if not ids:
        return {}
    rows = Episode.objects.filter(bank_id=bank.pk, pk__in=ids_in(ids)).values_list("id", "content", "token_count")
    return {pk: (content, tokens) for pk, content, tokens in rows}


def episode_thread_neighbours(*, bank: Bank, ids: list[int]) -> dict[int, tuple[int | None, int | None]]:
    """For each episode of ``ids`` that has a thread: the previous and next episode of that thread."""
    if not ids:
        return {}
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT p.id,
                (SELECT e.id FROM beliefs_episode e
                 WHERE e.bank_id = p.bank_id AND e.thread = p.thread AND (e.occurred_at, e.id) < (p.occurred_at, p.id)
                 ORDER BY e.occurred_at DESC, e.id DESC LIMIT 1),
                (SELECT e.id FROM beliefs_episode e
                 WHERE e.bank_id = p.bank_id AND e.thread = p.thread AND (e.occurred_at, e.id) > (p.occurred_at, p.id)
                 ORDER BY e.occurred_at, e.id LIMIT 1)
            FROM beliefs_episode p
            WHERE p.bank_id = %s AND p.id = ANY(%s) AND p.thread <> ''
            """,
            [bank.pk, list(ids)],
        )
        return {pk: (before, after) for pk, before, after in cursor.fetchall()}


def episode_evidence(*, bank: Bank, episode: Episode) -> list[Evidence]:
    """What beliefs quote from ``episode`` (with each belief's headline), in reading order of the quotes."""
    return list(
        Evidence.objects.filter(bank=bank, episode=episode)
        .select_related("belief")
        .only("id", "stance", "quote_start", "quote_end", "belief__id", "belief__statement", "belief__status",
              "belief__confidence", "belief__proof_count")
        .order_by("quote_start", "id")
    )  # fmt: skip


def episode_facts(*, bank: Bank, episode: Episode) -> list[Fact]:
    """The facts extracted from ``episode``, in reading order of their quotes (no vectors)."""
    facts = Fact.objects.filter(bank=bank, episode=episode).defer("embedding", "search_vector")
    return list(facts.order_by("quote_start", "id"))
