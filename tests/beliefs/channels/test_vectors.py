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
