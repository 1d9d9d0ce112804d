"""Row-level security beneath the ORM: foreign rows stay invisible even when a query forgets its filter,
and the request role cannot widen what it sees by any SQL it can run."""

import hashlib
import hmac

import psycopg
import pytest
from django.conf import settings
from django.db import connection, transaction

from beliefs.models import Belief, Episode
from beliefs.services.retain import RetainItem, retain
from beliefs.tasks import extract_bank_task
from memoryhub.tenancy import _apply, request_role, set_request_tenant, tenant_scope, tenant_token
from tests.beliefs.consolidation_helpers import T0, days, dismissal, remember
from tests.conftest import make_caller

MAINTENANCE_ROLE = settings.DATABASE_ROLES["maintenance"]["USER"]
# Tenant catalogue tables: needed to authenticate and resolve a bank before any tenant is known; no memory content.
# An invitation is found by its link's digest before its invitee belongs to the tenant.
EXEMPT = {"banks_bank", "banks_membership", "banks_apikey", "banks_invitation"}


def request_role_connection() -> psycopg.Connection:
    """A plain session of the request role (what API requests and workers log in as), on the test database."""
    role = settings.DATABASE_ROLES["request"]
    return psycopg.connect(
        host=role["HOST"] or None,
        port=role["PORT"] or None,
        user=role["USER"],
        password=role["PASSWORD"] or None,
        dbname=connection.settings_dict["NAME"],
        autocommit=True,
    )


def protected_tables() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT tablename FROM pg_policies WHERE policyname = 'tenant_isolation'")
        return sorted(row[0] for row in cursor.fetchall())


def scope_session(raw, tenant_id: int) -> None:
    """What request code does for ``tenant_id`` (session-wide here, so it lasts across autocommit statements)."""
    raw.execute("SELECT set_config('app.tenant_id', %s, false)", [str(tenant_id)])
    raw.execute("SELECT set_config('app.tenant_token', %s, false)", [tenant_token(tenant_id)])


def foreign_rows(raw, own_tenant: int) -> int:
    """Rows of any other tenant this session can see, over every protected table."""
    total = 0
    for table in protected_tables():
        total += raw.execute(f"SELECT count(*) FROM {table} WHERE tenant_id <> %s", [own_tenant]).fetchone()[0]
    return total


@pytest.mark.django_db
def test_every_table_with_a_tenant_or_bank_column_has_both_policies_and_the_maintenance_role_owns_it():
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT DISTINCT c.table_name FROM information_schema.columns c
               JOIN information_schema.tables t ON t.table_name = c.table_name AND t.table_schema = c.table_schema
               WHERE c.table_schema = 'public' AND c.column_name IN ('tenant_id', 'bank_id')
                 AND t.table_type = 'BASE TABLE'"""
        )
        owned = {row[0] for row in cursor.fetchall()} - EXEMPT
        cursor.execute(
            """SELECT c.relname, pg_get_userbyid(c.relowner), p.qual, p.with_check FROM pg_class c
               JOIN pg_policies p ON p.tablename = c.relname AND p.policyname = 'tenant_isolation'
               WHERE c.relrowsecurity AND c.relforcerowsecurity"""
        )
        isolation = {name: (owner, qual, check) for name, owner, qual, check in cursor.fetchall()}
        cursor.execute("SELECT tablename, roles::text[] FROM pg_policies WHERE policyname = 'maintenance_access'")
        maintenance = dict(cursor.fetchall())
        cursor.execute(
            "SELECT rolsuper, rolbypassrls, pg_has_role(%s, %s, 'MEMBER') FROM pg_roles WHERE rolname = %s",
            [request_role(), MAINTENANCE_ROLE, request_role()],
        )
        request_attributes = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM pg_class WHERE relowner = (SELECT oid FROM pg_roles WHERE rolname = %s)",
                       [request_role()])
        owned_by_request_role = cursor.fetchone()[0]
    assert len(owned) >= 21
    assert owned - set(isolation) == set()
    for table in owned:
        owner, qual, check = isolation[table]
        assert owner == MAINTENANCE_ROLE, table
        assert "memoryhub_tenant()" in qual and "memoryhub_tenant()" in check and "rls_bypass" not in qual, table
        assert maintenance[table] == [MAINTENANCE_ROLE], table
    assert request_attributes == (False, False, False)  # not superuser, not BYPASSRLS, not a maintenance member
    assert owned_by_request_role == 0


@pytest.mark.django_db(transaction=True)
def test_the_request_role_sees_nothing_without_a_signed_tenant():
    a, b = make_caller(), make_caller()
    retain(bank=a.bank, items=[RetainItem(content="tenant a secret")])
    retain(bank=b.bank, items=[RetainItem(content="tenant b secret")])
    with request_role_connection() as raw:
        assert raw.execute("SELECT count(*) FROM beliefs_episode").fetchone()[0] == 0
        assert raw.execute("SELECT count(*) FROM beliefs_bankterm").fetchone()[0] == 0
        raw.execute("SELECT set_config('app.tenant_id', %s, false)", [str(a.tenant.pk)])  # no token: still nothing
        assert raw.execute("SELECT count(*) FROM beliefs_episode").fetchone()[0] == 0
        scope_session(raw, a.tenant.pk)
        assert raw.execute("SELECT content FROM beliefs_episode").fetchall() == [("tenant a secret",)]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # WITH CHECK: no writing into another tenant
            raw.execute("UPDATE beliefs_episode SET tenant_id = %s WHERE tenant_id = %s", [b.tenant.pk, a.tenant.pk])


ATTACKS = {
    # Each runs as the request role, scoped to tenant A as a request would be; then B's rows must stay invisible.
    "bypass setting": ["SELECT set_config('app.rls_bypass', 'on', false)"],
    "other tenant id, own token": ["SELECT set_config('app.tenant_id', '{b}', false)"],
    "other tenant id, token with an empty key": [
        "SELECT set_config('app.tenant_id', '{b}', false)",
        "SELECT set_config('app.tenant_token', '{empty_key_token}', false)",
    ],
    "other tenant id, plain sha256 token": [
        "SELECT set_config('app.tenant_id', '{b}', false)",
        "SELECT set_config('app.tenant_token', encode(sha256('memoryhub-tenant:{b}'::bytea), 'hex'), false)",
    ],
    "reset role": ["RESET ROLE"],
    "reset all": ["RESET ALL", "SELECT set_config('app.tenant_id', '{b}', false)"],
    "discard all": ["DISCARD ALL", "SELECT set_config('app.rls_bypass', 'on', false)"],
    "role setting to none": ["SELECT set_config('role', 'none', false)"],
    "temporary view": ["CREATE TEMP VIEW peek AS SELECT * FROM beliefs_episode"],
    "temporary security-definer function": [
        "CREATE FUNCTION pg_temp.peek() RETURNS bigint LANGUAGE sql SECURITY DEFINER "
        "AS 'SELECT count(*) FROM public.beliefs_episode WHERE tenant_id = {b}'",
    ],
    "update another tenant's rows": ["UPDATE beliefs_episode SET tenant_id = {a} WHERE tenant_id = {b}"],
}

REFUSED = {
    "set role maintenance": "SET ROLE {maintenance}",
    "set local role maintenance": "BEGIN; SET LOCAL ROLE {maintenance}",
    "role setting to maintenance": "SELECT set_config('role', '{maintenance}', false)",
    "session authorization": "SET SESSION AUTHORIZATION {maintenance}",
    "read the token key": "SELECT secret FROM memoryhub_private.tenant_key",
    "disable row level security": "ALTER TABLE beliefs_episode DISABLE ROW LEVEL SECURITY",
    "no force row level security": "ALTER TABLE beliefs_episode NO FORCE ROW LEVEL SECURITY",
    "drop the policy": "DROP POLICY tenant_isolation ON beliefs_episode",
    "widen the policy": "ALTER POLICY tenant_isolation ON beliefs_episode USING (true)",
    "add a policy": "CREATE POLICY open ON beliefs_episode USING (true)",
    "join the maintenance policy": "ALTER POLICY maintenance_access ON beliefs_episode TO PUBLIC",
    "replace the tenant function": (
        "CREATE OR REPLACE FUNCTION public.memoryhub_tenant() RETURNS bigint LANGUAGE sql AS 'SELECT {b}::bigint'"
    ),
    "create a function in public": "CREATE FUNCTION public.peek() RETURNS int LANGUAGE sql AS 'SELECT 1'",
    "take ownership": "ALTER TABLE beliefs_episode OWNER TO {request}",
    "grant itself the maintenance role": "GRANT {maintenance} TO {request}",
    "truncate": "TRUNCATE beliefs_episode",
    "database default setting": "ALTER DATABASE {database} SET app.rls_bypass = 'on'",
    "row security off": "SET row_security = off; SELECT count(*) FROM beliefs_episode",
    "read planner statistics": "SELECT stavalues1::text FROM pg_statistic",
    "read a server file": "SELECT pg_read_file('PG_VERSION')",
    "create an extension": "CREATE EXTENSION dblink",
}


REFUSAL = psycopg.errors.InsufficientPrivilege | psycopg.errors.FeatureNotSupported | psycopg.errors.UndefinedFile


@pytest.fixture
def two_tenants_with_memory(transactional_db):
    """Tenant A with one episode; tenant B with episodes, entities, terms, facts, beliefs, evidence and versions."""
    a, b = make_caller(), make_caller()
    retain(bank=a.bank, items=[RetainItem(content="tenant a note")])
    remember(b.bank, [dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(3)])
    assert Belief.objects.filter(bank=b.bank).exists()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE beliefs_episode")  # planner statistics hold sample values of every column
    return a, b


def _values(a, b) -> dict:
    return {
        "a": a.tenant.pk,
        "b": b.tenant.pk,
        "request": request_role(),
        "maintenance": MAINTENANCE_ROLE,
        "database": connection.settings_dict["NAME"],
        "empty_key_token": hmac.new(b"", f"memoryhub-tenant:{b.tenant.pk}".encode(), hashlib.sha256).hexdigest(),
    }


def test_the_request_role_cannot_see_another_tenants_rows(two_tenants_with_memory):
    a, b = two_tenants_with_memory
    values = _values(a, b)
    for name, statements in ATTACKS.items():
        with request_role_connection() as raw:
            scope_session(raw, a.tenant.pk)
            assert foreign_rows(raw, a.tenant.pk) == 0
            for statement in statements:
                raw.execute(statement.format(**values))
            assert foreign_rows(raw, a.tenant.pk) == 0, name
            if name == "temporary view":
                assert raw.execute("SELECT count(*) FROM peek WHERE tenant_id = %s", [b.tenant.pk]).fetchone()[0] == 0
            if name == "temporary security-definer function":
                assert raw.execute("SELECT pg_temp.peek()").fetchone()[0] == 0
            assert raw.execute("SELECT memoryhub_tenant() IS DISTINCT FROM %s", [b.tenant.pk]).fetchone()[0], name
            assert raw.execute("SELECT count(*) FROM pg_stats WHERE tablename = 'beliefs_episode'").fetchone()[0] == 0
    assert Episode.objects.filter(bank=b.bank).count() == 3  # and nothing of B's was changed
    assert Episode.objects.filter(bank=a.bank).count() == 1


def test_the_request_role_is_refused_every_way_to_widen_its_view(two_tenants_with_memory):
    a, b = two_tenants_with_memory
    values = _values(a, b)
    for name, statement in REFUSED.items():
        with request_role_connection() as raw:
            scope_session(raw, a.tenant.pk)
            with pytest.raises(psycopg.Error) as refused:
                raw.execute(statement.format(**values))
            assert isinstance(refused.value, REFUSAL), (name, refused.value)
            raw.rollback()
            raw.execute("RESET row_security")
            assert foreign_rows(raw, a.tenant.pk) == 0, name
    with connection.cursor() as cursor:
        cursor.execute("SELECT policyname, qual FROM pg_policies WHERE tablename = 'beliefs_episode' ORDER BY 1")
        assert [row[0] for row in cursor.fetchall()] == ["maintenance_access", "tenant_isolation"]
        cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s", [request_role()])
        assert cursor.fetchone() == (False, False)
    assert Episode.objects.filter(bank=b.bank).count() == 3


@pytest.mark.django_db
def test_a_query_that_forgets_its_filter_still_sees_only_its_tenant(caller, other_caller):
    retain(bank=caller.bank, items=[RetainItem(content="mine")])
    retain(bank=other_caller.bank, items=[RetainItem(content="theirs")])
    with transaction.atomic():
        set_request_tenant(caller.tenant.pk)
        assert list(Episode.objects.values_list("content", flat=True)) == ["mine"]  # no bank filter on purpose
        assert Episode.objects.filter(bank=other_caller.bank).count() == 0


@pytest.mark.django_db(transaction=True)
def test_scope_does_not_leak_between_interleaved_requests_on_one_connection():
    a, b = make_caller(), make_caller()
    retain(bank=a.bank, items=[RetainItem(content="alpha note")])
    retain(bank=b.bank, items=[RetainItem(content="beta note")])
    for caller, mine, theirs in [
        (a, "alpha note", "beta note"),
        (b, "beta note", "alpha note"),
        (a, "alpha note", "beta note"),
    ]:
        listed = caller.client.get(caller.url("episodes/")).json()["results"]
        assert [row["content"] for row in listed] == [mine]
        recalled = caller.client.post(caller.url("recall"), {"query": "note", "budget_tokens": 100}, format="json")
        assert theirs not in recalled.content.decode()
        with connection.cursor() as cursor:  # the same connection, after the request's transaction ended
            cursor.execute(
                "SELECT coalesce(current_setting('app.tenant_id', true), ''), "
                "coalesce(current_setting('app.tenant_token', true), ''), current_user"
            )
            assert cursor.fetchone() == ("", "", MAINTENANCE_ROLE)


@pytest.mark.django_db(transaction=True)
def test_tasks_run_scoped_to_their_bank_and_a_leaked_scope_is_cleared(eager_tasks):
    a, b = make_caller(), make_caller()
    from memoryhub.celery import app

    app.conf.task_always_eager = False  # store only; the tasks run below
    try:
        retain(bank=b.bank, items=[dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(2)])
    finally:
        app.conf.task_always_eager = True
    # A crashed task left tenant A's scope on this session; the next task must not inherit it.
    _apply(request_role(), str(a.tenant.pk), tenant_token(a.tenant.pk), local=False)
    try:
        outcome = extract_bank_task.apply(kwargs={"bank_id": b.bank.pk})
        assert outcome.successful(), outcome.traceback
    finally:
        _apply("none", "", "", local=False)
    assert Belief.objects.get(bank=b.bank).proof_count == 2
    with tenant_scope(a.tenant.pk):
        assert Belief.objects.count() == 0
    with tenant_scope(b.tenant.pk):
        assert Belief.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_staff_see_every_tenant_in_the_admin_and_api_users_do_not_bypass(client):
    from django.contrib.auth import get_user_model

    a = make_caller()
    retain(bank=a.bank, items=[RetainItem(content="visible to operators")])
    admin = get_user_model().objects.create_superuser("root", "root@example.invalid", "pw-123456")
    client.force_login(admin)
    page = client.get("/admin/beliefs/episode/")
    episode = Episode.objects.get(bank=a.bank)
    assert page.status_code == 200 and f"episode {episode.pk} in bank {a.bank.pk}" in page.content.decode()
    with request_role_connection() as raw:
        assert raw.execute("SELECT count(*) FROM beliefs_episode").fetchone()[0] == 0
