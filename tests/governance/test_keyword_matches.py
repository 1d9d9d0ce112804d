"""The keyword channel's index match under row-level security: the GIN index serves it, and it stays in the tenant."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from beliefs.channels import keyword
from beliefs.engine.types import RecallFilters
from beliefs.services.retain import RetainItem, retain
from memoryhub.tenancy import rls_bypass, set_request_tenant
from tests.governance.test_rls import request_role_connection, scope_session
from tests.helpers.callers import make_caller

MATCH_SQL = "SELECT public.memoryhub_keyword_matches(%s, to_tsquery('simple', 'zanzibar'), 100)"
CANDIDATES_SQL = (
    "SELECT id, search_vector FROM public.memoryhub_keyword_candidates(%s, to_tsquery('simple', 'zanzibar'), 100)"
)
BODY = "EXPLAIN SELECT e.id FROM beliefs_episode e WHERE e.search_vector @@ to_tsquery('simple', 'zanzibar')"


@pytest.fixture
def two_banks(transactional_db):
    a, b = make_caller(), make_caller()
    retain(bank=a.bank, items=[RetainItem(content="shipment to zanzibar delayed"), RetainItem(content="other")])
    retain(bank=b.bank, items=[RetainItem(content="zanzibar invoice for tenant b")])
    return a, b


@pytest.mark.parametrize("match_sql", [MATCH_SQL, CANDIDATES_SQL], ids=["ids", "candidates"])
def test_index_match_returns_only_the_scoped_tenants_episodes(two_banks, match_sql):
    a, b = two_banks
    with request_role_connection() as raw:
        scope_session(raw, a.tenant.pk)
        own = raw.execute(match_sql, [a.bank.pk]).fetchall()
        assert len(own) == 1
        assert raw.execute(match_sql, [b.bank.pk]).fetchall() == []  # another tenant's bank: nothing
        raw.execute("SELECT set_config('app.tenant_token', 'forged', false)")
        assert raw.execute(match_sql, [a.bank.pk]).fetchall() == []  # no valid token: nothing
    with request_role_connection() as raw:  # never scoped at all
        assert raw.execute(match_sql, [a.bank.pk]).fetchall() == []


def test_the_candidates_carry_the_search_vector_of_the_matched_episode(two_banks):
    a, _ = two_banks
    with request_role_connection() as raw:
        scope_session(raw, a.tenant.pk)
        ((pk, vector),) = raw.execute(CANDIDATES_SQL, [a.bank.pk]).fetchall()
        stored = raw.execute("SELECT search_vector::text FROM beliefs_episode WHERE id = %s", [pk]).fetchone()[0]
    assert "'zanzibar'" in vector and vector == stored


def _plan(sql, params) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def test_the_match_can_use_the_gin_index_only_as_the_functions_owner(two_banks):
    a, _ = two_banks
    with rls_bypass(), transaction.atomic():  # the maintenance role owns the function: its context
        assert "beliefs_episode_search_gin" in _plan(BODY, [])
    with transaction.atomic():  # the request role: `@@` is not leakproof, row-level security keeps the index out
        set_request_tenant(a.tenant.pk)
        assert "beliefs_episode_search_gin" not in _plan(BODY, [])


def test_keyword_search_as_the_request_role_goes_through_the_index_functions(two_banks):
    a, _ = two_banks
    unfiltered, filtered = {}, {}
    for found, filters in ((unfiltered, None), (filtered, RecallFilters(sources=("api",)))):
        with transaction.atomic():
            set_request_tenant(a.tenant.pk)
            with CaptureQueriesContext(connection) as queries:
                hits = keyword.search(bank=a.bank, query_text="zanzibar shipment", limit=10, filters=filters)
        found["sql"] = " ".join(query["sql"] for query in queries.captured_queries)
        found["ids"] = [hit.item_id for hit in hits]
    assert "memoryhub_keyword_candidates" in unfiltered["sql"] and "memoryhub_keyword_matches" not in unfiltered["sql"]
    assert "memoryhub_keyword_matches" in filtered["sql"]  # filters need the whole row: ids, then the rows
    assert len(unfiltered["ids"]) == 1 and filtered["ids"] == unfiltered["ids"]
    with rls_bypass(), transaction.atomic():
        assert [h.item_id for h in keyword.search(bank=a.bank, query_text="zanzibar shipment", limit=10)] == (
            unfiltered["ids"]
        )


def test_keyword_search_as_the_request_role_with_no_index_match_returns_nothing(two_banks, monkeypatch):
    a, _ = two_banks
    monkeypatch.setattr(keyword, "_INDEX_MATCHES", 0)  # the filtered path's index function then matches nothing
    monkeypatch.setattr(
        keyword,
        "_CANDIDATES_SQL",
        "SELECT NULL::bigint AS id, NULL::tsvector AS search_vector WHERE %s::bigint + length(%s) + %s < 0",
    )
    for filters in (None, RecallFilters(sources=("api",))):
        with transaction.atomic():
            set_request_tenant(a.tenant.pk)
            assert keyword.search(bank=a.bank, query_text="zanzibar shipment", limit=10, filters=filters) == []
