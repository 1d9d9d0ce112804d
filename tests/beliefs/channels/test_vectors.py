"""One module owns pgvector: every vector distance is built there, and its scan settings never outlive a query."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.db import connection, transaction

from beliefs.channels import derived, temporal, vectors
from beliefs.engine.temporal import parse_time_ranges
from memoryhub.embeddings import embed_query
from tests.conftest import retain_texts

ROOT = Path(__file__).resolve().parents[3]
SCAN_SETTINGS = ("enable_indexscan", "hnsw.ef_search", "hnsw.iterative_scan")


def _settings() -> dict[str, str | None]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join("current_setting(%s, true)" for _ in SCAN_SETTINGS), SCAN_SETTINGS)
        return dict(zip(SCAN_SETTINGS, cursor.fetchone(), strict=True))


def test_no_module_outside_vectors_builds_a_vector_distance():
    offenders = []
    for folder in ("banks", "beliefs", "memoryhub", "reviews", "portability", "workloads", "audit"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "vectors.py" or "migrations" in path.parts:
                continue
            text = path.read_text()
            if re.search(r"\b(CosineDistance|L2Distance|MaxInnerProduct|enable_indexscan|hnsw\.|ivfflat\.)", text):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


@pytest.mark.django_db
def test_scan_settings_inside_a_callers_transaction_are_put_back():
    # The test runs inside a transaction, as a service calling recall would: SET LOCAL alone would last to its end.
    with transaction.atomic():
        before = _settings()
        with vectors.vector_scan(enable_indexscan=False, hnsw__ef_search=777, hnsw__iterative_scan="strict_order"):
            assert _settings() == {
                "enable_indexscan": "off",
                "hnsw.ef_search": "777",
                "hnsw.iterative_scan": "strict_order",
            }
        after = _settings()
    assert after["enable_indexscan"] == before["enable_indexscan"] == "on"
    assert after["hnsw.ef_search"] != "777" and after["hnsw.iterative_scan"] != "strict_order"


@pytest.mark.django_db
def test_scan_settings_are_undone_when_the_block_fails():
    with transaction.atomic():
        with pytest.raises(ZeroDivisionError), vectors.vector_scan(enable_indexscan=False):
            assert _settings()["enable_indexscan"] == "off"
            1 / 0  # noqa: B018
        assert _settings()["enable_indexscan"] == "on"


@pytest.mark.django_db
def test_derived_and_temporal_channels_leave_index_scans_on_for_the_rest_of_the_transaction(caller):
    # Both used to switch index scans off for small banks and leave them off for every later read.
    retain_texts(caller.bank, ["Melanie went camping in June 2023 with her kids."])
    query = "When did Melanie go camping in June 2023?"
    vector = embed_query(query)
    with transaction.atomic():
        derived.search(bank=caller.bank, query_vector=vector, limit=5, exact=True)
        assert _settings()["enable_indexscan"] == "on"
        temporal.search(
            bank=caller.bank,
            query_text=query,
            query_vector=vector,
            limit=5,
            ranges=parse_time_ranges(query, temporal.reference_time(bank=caller.bank, now=None, as_of=None)),
            exact=True,
        )
        assert _settings()["enable_indexscan"] == "on"


@pytest.mark.django_db
@pytest.mark.parametrize("own_index_lists", [None, 4])
def test_an_approximate_search_inside_a_transaction_runs_in_one_request_and_puts_every_setting_back(
    caller, own_index_lists
):
    from beliefs.channels.filters import episode_scope

    retain_texts(caller.bank, ["Melanie went camping in June.", "Caroline paints.", "The lake was cold."])
    vector = vectors.query_text(embed_query("camping trip"))
    scope = episode_scope(caller.bank)
    names = (*SCAN_SETTINGS, "ivfflat.probes", "ivfflat.iterative_scan")
    read = "SELECT " + ", ".join("current_setting(%s, true)" for _ in names)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL hnsw.ef_search = 55")
            cursor.execute(read, names)
            before = cursor.fetchone()
        statements = []
        with connection.execute_wrapper(lambda execute, sql, *args: statements.append(sql) or execute(sql, *args)):
            rows = vectors.nearest_episodes(scope, vector=vector, limit=2, exact=False, own_index_lists=own_index_lists)
        with connection.cursor() as cursor:
            cursor.execute(read, names)
            after = cursor.fetchone()
    assert len(statements) == 1  # save, set, search and restore travel together
    assert before[1] == "55" and after == before
    exact = vectors.nearest_episodes(scope, vector=vector, limit=2, exact=True, own_index_lists=None)
    assert [pk for pk, _ in rows] == [pk for pk, _ in exact]


def _ranked_as_compiled_each_time(bank, as_of, kinds, vector, limit, max_distance):
    """``nearest_of_kinds`` as it was before its query was compiled once: Django compiles it for these values."""
    from django.db.models import CharField, Value
    from pgvector import Vector
    from pgvector.django import CosineDistance

    target = Value(Vector(vector).to_text())
    ranked = [
        queryset.annotate(kind=Value(kind, output_field=CharField()), distance=CosineDistance("embedding", target))
        .filter(distance__lte=max_distance)
        .order_by("distance", "id")
        .values_list("kind", "id", "distance")[:limit]
        for kind, queryset in derived._candidates(bank.pk, as_of, kinds).items()
    ]
    combined = ranked[0].union(*ranked[1:], all=True) if len(ranked) > 1 else ranked[0]
    sql, params = combined.query.sql_with_params()
    return [tuple(row) for row in vectors.scanned_rows(sql, list(params), vectors.EXACT)]


@pytest.mark.django_db
def test_beliefs_and_facts_ranked_by_a_query_compiled_once_are_each_banks_own_and_those_a_fresh_query_finds(
    caller, other_caller
):
    from tests.helpers.consolidation import T0, days, dismissal, remember

    for who, host in ((caller, "db-3"), (other_caller, "db-9")):
        remember(who.bank, [dismissal("disk_full", host, T0 + days(i)) for i in range(4)])
    vector = embed_query("was the disk_full alert on the database host benign?")
    kinds = ("belief", "fact", "play")
    vectors._kinds_query.cache_clear()
    seen = {}
    for who in (caller, other_caller):
        for as_of in (None, T0 + days(2)):
            got = vectors.nearest_of_kinds(
                derived._candidates, bank_id=who.bank.pk, as_of=as_of, kinds=kinds, vector=vectors.query_text(vector),
                limit=10, max_distance=0.9, exact=True,
            )  # fmt: skip
            assert got == _ranked_as_compiled_each_time(who.bank, as_of, kinds, vector, 10, 0.9)
            seen[who.bank.pk, as_of] = got
    assert vectors._kinds_query.cache_info().misses == 2  # (once with a time, once without, for both banks)
    mine, theirs = seen[caller.bank.pk, None], seen[other_caller.bank.pk, None]
    assert "belief" in {kind for kind, _, _ in mine}  # (its facts are folded into it)
    assert not {(kind, pk) for kind, pk, _ in mine} & {(kind, pk) for kind, pk, _ in theirs}
    for kinds in (("play",), ("fact",), ("belief", "play")):  # (plays are not filtered by time)
        got = vectors.nearest_of_kinds(
            derived._candidates, bank_id=caller.bank.pk, as_of=T0 + days(2), kinds=kinds,
            vector=vectors.query_text(vector), limit=10, max_distance=0.9, exact=True,
        )  # fmt: skip
        assert got == _ranked_as_compiled_each_time(caller.bank, T0 + days(2), kinds, vector, 10, 0.9), kinds
    hits = derived.search(bank=caller.bank, query_vector=vector, limit=10, exact=True)
    assert hits and all("db-9" not in hit.text for hit in hits) and any("db-3" in hit.text for hit in hits)
