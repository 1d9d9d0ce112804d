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
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import CharField, QuerySet, Value
from django.db.models.functions import Cast
from pgvector import Vector
from pgvector.django import CosineDistance, HalfVectorField

from banks.models import Bank

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


def _target(query_vector: np.ndarray) -> Value:
    """The query vector's text form, made once for every distance a query computes."""
    return Value(Vector(query_vector).to_text())


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


def nearest_episodes(
    episodes: QuerySet, *, query_vector: np.ndarray, limit: int, exact: bool, own_index_lists: int | None
) -> list[tuple[int, float]]:
    """``(id, distance)`` of the ``limit`` rows of ``episodes`` nearest to ``query_vector``, nearest first.

    Exact: a sequential scan. A bank with an IVFFlat index of its own: a short HNSW walk and
    that index's nearest lists, merged. Otherwise a deep HNSW walk. The approximate walks
    only choose which rows to visit; every distance returned is exact, and sorting the
    candidates by it recovers the true top ``limit`` an approximate order would have cut.
    """
    target = _target(query_vector)
    candidates = episodes.annotate(distance=CosineDistance("embedding", target))
    by_distance = candidates.order_by("distance").values_list("id", "distance")
    if exact:
        queryset, scan = by_distance[:limit], EXACT
    elif own_index_lists:
        depth = max(limit, settings.MEMORYHUB["VECTOR_INDEX_DEPTH"])
        halfvec = HalfVectorField(dimensions=settings.MEMORYHUB["EMBEDDING_DIMENSIONS"])
        # The bank's own IVFFlat index orders by this cast (its index expression); both walks return exact distances.
        in_lists = candidates.order_by(CosineDistance(Cast("embedding", halfvec), target)).values_list("id", "distance")
        queryset = by_distance[:depth].union(in_lists[:depth], all=True)
        scan = {
            **ITERATIVE,
            "hnsw.ef_search": depth,
            "ivfflat.probes": index_probes(own_index_lists),
            "ivfflat.iterative_scan": "relaxed_order",
        }
    else:
        queryset = by_distance[: candidate_depth(limit)]
        scan = {**ITERATIVE, "hnsw.ef_search": max(settings.MEMORYHUB["HNSW_EF_SEARCH"], limit)}
    with vector_scan(**_names(scan)):
        rows = list(queryset)
    return sorted(set(rows), key=lambda row: (row[1], row[0]))[:limit]


def nearest_in(rows: QuerySet, *, query_vector: np.ndarray, limit: int, exact: bool) -> list[tuple[int, float]]:
    """``(id, distance)`` of the ``limit`` rows of ``rows`` nearest to ``query_vector``, nearest first.

    For a subset the caller already narrowed (a time range): ``exact`` reads it through its
    own predicates and sorts by exact distance, otherwise an HNSW walk with iterative scans."""
    queryset = (
        rows.annotate(distance=CosineDistance("embedding", _target(query_vector)))
        .order_by("distance")
        .values_list("id", "distance")[:limit]
    )
    with vector_scan(enable_indexscan=not exact, **_names(ITERATIVE), hnsw__ef_search=max(100, limit)):
        return sorted(queryset, key=lambda row: (row[1], row[0]))


def nearest_of_kinds(
    candidates: Mapping[str, QuerySet], *, query_vector: np.ndarray, limit: int, max_distance: float, exact: bool
) -> list[tuple[str, int, float]]:
    """``(kind, id, distance)`` of each kind's ``limit`` nearest rows within ``max_distance``, in one query."""
    target = _target(query_vector)
    ranked = [
        queryset.annotate(kind=Value(kind, output_field=CharField()), distance=CosineDistance("embedding", target))
        .filter(distance__lte=max_distance)
        .order_by("distance", "id")
        .values_list("kind", "id", "distance")[:limit]
        for kind, queryset in candidates.items()
    ]
    if not ranked:
        return []
    combined = ranked[0].union(*ranked[1:], all=True) if len(ranked) > 1 else ranked[0]
    with vector_scan(**_names(EXACT if exact else ITERATIVE)):
        return list(combined)


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
