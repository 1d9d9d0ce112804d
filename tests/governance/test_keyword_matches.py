"""The keyword channel's index match under row-level security: the GIN index serves it, and it stays in the tenant."""

import pytest
from django.db import connection, transaction
from django.db.models.expressions import RawSQL

from beliefs.channels import keyword
from beliefs.services.retain import RetainItem, retain
from memoryhub.tenancy import rls_bypass, set_request_tenant
from tests.conftest import make_caller
from tests.governance.test_rls import request_role_connection, scope_session

MATCH_SQL = "SELECT public.memoryhub_keyword_matches(%s, to_tsquery('simple', 'zanzibar'), 100)"
BODY = (
    "EXPLAIN SELECT e.id FROM beliefs_episode e WHERE e.search_vector @@ to_tsquery('simple', 'zanzibar')"
)


@pytest.fixture
def two_banks(transactional_db):
    a, b = make_caller(), make_caller()
    retain(bank=a.bank, items=[RetainItem(content="shipment to zanzibar delayed"), RetainItem(content="other")])
    retain(bank=b.bank, items=[RetainItem(content="zanzibar invoice for tenant b")])
    return a, b


def test_index_match_returns_only_the_scoped_tenants_episodes(two_banks):
    a, b = two_banks
    with request_role_connection() as raw:
        scope_session(raw, a.tenant.pk)
        own = [row[0] for row in raw.execute(MATCH_SQL, [a.bank.pk]).fetchall()]
        assert len(own) == 1
        assert raw.execute(MATCH_SQL, [b.bank.pk]).fetchall() == []  # another tenant's bank: nothing
        raw.execute("SELECT set_config('app.tenant_token', 'forged', false)")
        assert raw.execute(MATCH_SQL, [a.bank.pk]).fetchall() == []  # no valid token: nothing
    with request_role_connection() as raw:  # never scoped at all
        assert raw.execute(MATCH_SQL, [a.bank.pk]).fetchall() == []


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


def test_keyword_search_as_the_request_role_goes_through_the_index_match(two_banks, monkeypatch):
    a, _ = two_banks
    calls = []
    original = keyword._indexed_matches
    monkeypatch.setattr(keyword, "_indexed_matches", lambda *args: calls.append(args) or original(*args))
    with transaction.atomic():
        set_request_tenant(a.tenant.pk)
        hits = keyword.search(bank=a.bank, query_text="zanzibar shipment", limit=10)
    assert calls and len(hits) == 1
    with rls_bypass(), transaction.atomic():
        assert [h.item_id for h in keyword.search(bank=a.bank, query_text="zanzibar shipment", limit=10)] == [
            h.item_id for h in hits
        ]


def test_keyword_search_as_the_request_role_with_no_index_match_returns_nothing(two_banks, monkeypatch):
    a, _ = two_banks
    monkeypatch.setattr(keyword, "_indexed_matches", lambda *args: RawSQL("SELECT NULL::bigint WHERE false", []))
    with transaction.atomic():
        set_request_tenant(a.tenant.pk)
        assert keyword.search(bank=a.bank, query_text="zanzibar shipment", limit=10) == []
