"""Every pgvector query MemoryHub makes, and the scan settings they run under.

pgvector's rules (PITFALLS, "pgvector"): the operator class must match the distance
(``vector_cosine_ops`` with ``CosineDistance``), an ordered query needs a ``LIMIT`` or
PostgreSQL scans the whole table, and an HNSW index is walked before the bank and filter
predicates apply, so a small bank inside a big table needs iterative scans to come back
full. Each query here follows them; nothing else in MemoryHub builds a vector distance.

Scan settings (``enable_indexscan``, ``hnsw.ef_search``, ``hnsw.iterative_scan``,
``ivfflat.probes``) are changed only inside ``vector_scan``, which always leaves them as
it found them: outside a transaction it opens one and the settings end with it; inside a
caller's transaction (where ``SET LOCAL`` would outlive the block and slow every later
read of that transaction) it puts the previous values back when the block ends, and a
failed block rolls back to its savepoint, which undoes them too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import lru_cache

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import CharField, QuerySet, Value
from pgvector.django import CosineDistance

from banks.models import Bank
from beliefs.channels.filters import EpisodeScope
from beliefs.models.embedding_field import vector_text

# What each scan mode sets. Exact: the planner may not walk a vector index (a sequential or B-tree scan, then an
# exact sort). Approximate: HNSW and IVFFlat walks keep going until the LIMIT is met after filtering.
EXACT = {"enable_indexscan": "off"}
ITERATIVE = {"hnsw.iterative_scan": "relaxed_order"}
_SETTING_NAME = re.compile(r"^[a-z_]+(\.[a-z_]+)?$")


@contextmanager
def vector_scan(**options: str | int | bool | None) -> Iterator[None]:
    """Run the block with the given scan settings (``None`` values are skipped), then restore them.

    Names use ``__`` for the dot of a namespaced setting: ``vector_scan(hnsw__ef_search=400)``.
    Booleans become ``on``/``off``. One round trip sets them and reads the previous values.
    """
    wanted = {name.replace("__", "."): _setting_text(value) for name, value in options.items() if value is not None}
    outer = connection.in_atomic_block
    with transaction.atomic():
        if not wanted:
            yield
            return
        with connection.cursor() as cursor:
            names = list(wanted)
            cursor.execute(
                "SELECT "
                + ", ".join("current_setting(%s, true)" for _ in names)
                + ", "
                + ", ".join("set_config(%s, %s, true)" for _ in names),
                [*names, *(part for name in names for part in (name, wanted[name]))],
            )
            previous = cursor.fetchone()[: len(names)]
        yield
        if outer:  # SET LOCAL would last until the caller's transaction ends: put the old values back
            _restore(dict(zip(names, previous, strict=True)))


def _restore(previous: dict[str, str | None]) -> None:
    """Put settings back; one that had no value yet (pgvector's, before its library loaded) goes back to its
    default."""
    known = {name: value for name, value in previous.items() if value is not None}
    with connection.cursor() as cursor:
        if known:
            sql = "SELECT " + ", ".join("set_config(%s, %s, true)" for _ in known)
            cursor.execute(sql, [part for item in known.items() for part in item])
        for name in sorted(previous.keys() - known.keys()):
            if not _SETTING_NAME.match(name):
                raise ValueError(f"not a setting name: {name!r}")
            cursor.execute(f"SET LOCAL {name} TO DEFAULT")


def _setting_text(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def bank_is_small(bank: Bank) -> bool:
    """Whether an exact scan of the bank is about as cheap as an index walk."""
    from beliefs.models import BankTextStats

    size = BankTextStats.objects.filter(bank=bank).values_list("doc_count", flat=True).first() or 0
    return size <= settings.MEMORYHUB["EXACT_SEARCH_BELOW"]


def index_probes(lists: int) -> int:
    """Lists of a bank's own IVFFlat index a query reads: at least ``VECTOR_INDEX_MIN_PROBES``, the square root of
    the lists in a very large index."""
    return min(lists, max(settings.MEMORYHUB["VECTOR_INDEX_MIN_PROBES"], round(math.sqrt(lists))))


def candidate_depth(limit: int) -> int:
    """How many index candidates an approximate search collects before the exact re-rank keeps ``limit``."""
    return max(limit, settings.MEMORYHUB["HNSW_RERANK_DEPTH"])


def query_text(query_vector: np.ndarray) -> str:
    """The vector as pgvector's text input, made once per recall (``vector_text``: every float32 exactly)."""
    return vector_text(query_vector)


def scanned_rows(sql: str, params: list, scan: Mapping[str, object]) -> list[tuple]:
    """The rows of one query run under ``scan`` settings, which end with it, in a single round trip.

    Outside a transaction the settings and the query travel as one multi-statement request:
    PostgreSQL runs it as one implicit transaction, so ``set_config(…, true)`` holds for the
    query and ends with it. Inside a caller's transaction (a request's, or a service's) the
    request saves each setting's value in a placeholder setting of its own, sets the scan's,
    runs the query and puts the saved values back (a setting that had none gets its default),
    still one request: a BEGIN, savepoint and restore around every channel read cost more
    than the read. A query that fails aborts the transaction (or rolls back to the caller's
    savepoint), which undoes the settings with it.
    """
    if not scan:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    names = list(scan)
    settings_sql = "SELECT " + ", ".join("set_config(%s, %s, true)" for _ in names)
    settings_params = [part for name, value in scan.items() for part in (name, _setting_text(value))]
    if not connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute(settings_sql + "; " + sql, [*settings_params, *params])
            cursor.nextset()
            return cursor.fetchall()
    save = "SELECT " + ", ".join(
        f"set_config('{_STASH}{i}', coalesce(current_setting(%s, true), ''), true)" for i in range(len(names))
    )
    restore = "SELECT " + ", ".join(
        f"set_config(%s, coalesce(nullif(current_setting('{_STASH}{i}'), ''),"
        " (SELECT reset_val FROM pg_settings WHERE name = %s)), true)"
        for i in range(len(names))
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"{save}; {settings_sql}; {sql}; {restore}",
            [*names, *settings_params, *params, *(part for name in names for part in (name, name))],
        )
        cursor.nextset()
        cursor.nextset()
        return cursor.fetchall()


# Placeholder settings holding, inside a caller's transaction, the values a scan replaced until it puts them back.
_STASH = "memoryhub_scan.previous_"


# The planner may walk a vector index only for ORDER BY the indexed expression itself; ordering by the distance
# plus zero (the same value) reads the bank's rows through its own predicates and sorts them exactly, with no
# setting to change and restore.
_EXACT_ORDER = "(e.embedding <=> %s::vector) + 0"
_INDEX_ORDER = "e.embedding <=> %s::vector"


def nearest_episodes(
    scope: EpisodeScope,
    *,
    vector: str,
    limit: int,
    exact: bool,
    own_index_lists: int | None,
    own_index_walk: bool = True,
) -> list[tuple[int, float]]:
    """``(id, distance)`` of the ``limit`` episodes in ``scope`` nearest to ``vector`` (``query_text``), nearest
    first.

    Exact: the bank's rows, sorted. A bank with an IVFFlat index of its own: that index's
    nearest lists, merged with a short HNSW walk when ``own_index_walk`` (the largest
    banks). Otherwise a deep HNSW walk. The approximate reads only choose which rows to
    visit; every distance returned is exact, and sorting the candidates by it recovers the
    true top ``limit`` an approximate order would have cut.
    """
    where, params = scope.sql, list(scope.params)
    if exact:
        sql = f"SELECT e.id, {_EXACT_ORDER} AS distance FROM beliefs_episode e WHERE {where} ORDER BY distance LIMIT %s"
        return scanned_rows(sql, [vector, *params, limit], {})
    if own_index_lists:
        halfvec = f"halfvec({settings.MEMORYHUB['EMBEDDING_DIMENSIONS']})"
        # The bank's own IVFFlat index orders by this cast (its index expression); the distance returned is exact.
        lists = (
            f"SELECT e.id, {_INDEX_ORDER} AS distance FROM beliefs_episode e WHERE {where}"
            f" ORDER BY e.embedding::{halfvec} <=> %s::{halfvec} LIMIT %s"
        )
        scan = {
            "ivfflat.probes": index_probes(own_index_lists),
            "ivfflat.iterative_scan": "relaxed_order",
        }
        if own_index_walk:
            depth = max(limit, settings.MEMORYHUB["VECTOR_INDEX_DEPTH"])
            walk = f"SELECT e.id, {_INDEX_ORDER} AS distance FROM beliefs_episode e WHERE {where} ORDER BY 2 LIMIT %s"
            rows = scanned_rows(
                f"({walk}) UNION ALL ({lists})",
                [vector, *params, depth, vector, *params, vector, depth],
                {**ITERATIVE, "hnsw.ef_search": depth, **scan},
            )
        else:  # twice the limit: the half-precision order and the exact one disagree only near the cut
            rows = scanned_rows(lists, [vector, *params, vector, 2 * limit], scan)
    else:
        sql = f"SELECT e.id, {_INDEX_ORDER} AS distance FROM beliefs_episode e WHERE {where} ORDER BY 2 LIMIT %s"
        scan = {**ITERATIVE, "hnsw.ef_search": max(settings.MEMORYHUB["HNSW_EF_SEARCH"], limit)}
        rows = scanned_rows(sql, [vector, *params, candidate_depth(limit)], scan)
    return sorted(set(rows), key=lambda row: (row[1], row[0]))[:limit]


def nearest_in(
    scope: EpisodeScope, condition: str, condition_params: list, *, vector: str, limit: int, exact: bool
) -> list[tuple[int, float]]:
    """``(id, distance)`` of the ``limit`` episodes in ``scope`` that also meet ``condition`` nearest to ``vector``.

    For a subset the caller narrowed (a time range, a subject): ``exact`` reads it through
    its own predicates and sorts by exact distance, otherwise an HNSW walk with iterative
    scans keeps going until ``limit`` rows pass."""
    order = _EXACT_ORDER if exact else _INDEX_ORDER
    sql = (
        f"SELECT e.id, {order} AS distance FROM beliefs_episode e WHERE {scope.sql} AND ({condition})"
        " ORDER BY distance LIMIT %s"
    )
    scan = {} if exact else {**ITERATIVE, "hnsw.ef_search": max(100, limit)}
    rows = scanned_rows(sql, [vector, *scope.params, *condition_params, limit], scan)
    return sorted(rows, key=lambda row: (row[1], row[0]))


def nearest_of_kinds(
    candidates: Callable[[int, datetime | None, tuple[str, ...]], Mapping[str, QuerySet]],
    *,
    bank_id: int,
    as_of: datetime | None,
    kinds: tuple[str, ...],
    vector: str,
    limit: int,
    max_distance: float,
    exact: bool,
) -> list[tuple[str, int, float]]:
    """``(kind, id, distance)`` of each kind's ``limit`` nearest rows within ``max_distance``, in one query.

    ``candidates(bank_id, as_of, kinds)`` gives each kind's rows that may be ranked. Django compiles the query once
    for each ``candidates``, ``kinds``, ``limit`` and whether ``as_of`` is given (compiling it cost more Python than
    the rest of the read); each call fills in its own bank, time, query vector (``vector``: ``query_text``'s form)
    and cut-off."""
    compiled = _kinds_query(candidates, kinds, as_of is not None, limit)
    if compiled is None:
        return []
    sql, slots = compiled
    values = {_BANK: bank_id, _AS_OF: as_of, _VECTOR: vector, _DISTANCE: max_distance}
    params = [values[value] if slot else value for slot, value in slots]
    return [tuple(row) for row in scanned_rows(sql, params, EXACT if exact else ITERATIVE)]


# Stand-ins the ranking query is compiled with, each found again among the compiled parameters (never real values).
_BANK = -7_340_291_118
_AS_OF = datetime(1901, 2, 3, 4, 5, 6, 789012, tzinfo=UTC)
_VECTOR = "[stand-in for the query vector]"
_DISTANCE = 0.918273645546372


@lru_cache(maxsize=64)
def _kinds_query(candidates, kinds: tuple[str, ...], timed: bool, limit: int) -> tuple[str, tuple] | None:
    """The SQL of ``nearest_of_kinds`` and its parameters, each ``(True, stand-in)`` where a call's own value goes."""
    target = Value(_VECTOR)
    ranked = [
        queryset.annotate(kind=Value(kind, output_field=CharField()), distance=CosineDistance("embedding", target))
        .filter(distance__lte=_DISTANCE)
        .order_by("distance", "id")
        .values_list("kind", "id", "distance")[:limit]
        for kind, queryset in candidates(_BANK, _AS_OF if timed else None, kinds).items()
    ]
    if not ranked:
        return None
    combined = ranked[0].union(*ranked[1:], all=True) if len(ranked) > 1 else ranked[0]
    sql, params = combined.query.sql_with_params()
    stand_ins = (_BANK, _AS_OF, _VECTOR, _DISTANCE)
    slots = tuple((any(type(p) is type(s) and p == s for s in stand_ins), p) for p in params)
    # (the time only where a kind reads it: plays are not filtered by time)
    if not {_BANK, _VECTOR, _DISTANCE} <= {value for slot, value in slots if slot}:
        raise RuntimeError("the ranking query's parameters do not hold every stand-in it was compiled with")
    return sql, slots


def closest(rows: QuerySet, *, field: str, query_vector, max_distance: float) -> QuerySet:
    """``rows`` within ``max_distance`` of ``query_vector`` (cosine, on ``field``), nearest first, ``distance``
    annotated. The caller slices it (a ``LIMIT``), as every ordered vector query must be."""
    return (
        rows.annotate(distance=CosineDistance(field, query_vector))
        .filter(distance__lte=max_distance)
        .order_by("distance", "id")
    )


def _names(scan: Mapping[str, object]) -> dict[str, object]:
    """Setting names as ``vector_scan`` keyword arguments."""
    return {name.replace(".", "__"): value for name, value in scan.items()}
