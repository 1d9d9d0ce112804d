"""Row-level security beneath the ORM: foreign rows stay invisible even when a query forgets its filter,
and the request role cannot widen what it sees by any SQL it can run."""

import hashlib
import hmac

import psycopg
import pytest
from django.conf import settings
from django.db import connection, transaction
from rest_framework.test import APIClient

from beliefs.models import Belief, Episode
from beliefs.services.retain import RetainItem, retain
from beliefs.tasks import extract_bank_task
from memoryhub.tenancy import _apply, request_role, set_request_tenant, tenant_scope, tenant_token
from tests.helpers.callers import make_caller
from tests.helpers.consolidation import T0, days, dismissal, remember

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
        cursor.execute(
            "SELECT count(*) FROM pg_class WHERE relowner = (SELECT oid FROM pg_roles WHERE rolname = %s)",
            [request_role()],
        )
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
    assert page.status_code == 200 and f'href="/admin/beliefs/episode/{episode.pk}/change/' in page.content.decode()
    with request_role_connection() as raw:
        assert raw.execute("SELECT count(*) FROM beliefs_episode").fetchone()[0] == 0


# --- M2: the request role cannot mint access (keys, memberships, accounts, permissions, sessions) -----------------

# Each runs as the request role, scoped to tenant A as a request would be, and must be refused: none of these tables
# is writable by the request role, and the owner functions refuse a tenant the session is not scoped to.
MINT_ACCESS = {
    # The review's exact SQL: an admin key for tenant B with a secret the attacker knows.
    "insert a key for another tenant": (
        "INSERT INTO banks_apikey (tenant_id, bank_id, name, prefix, secret_hash, created_at, scopes) "
        "VALUES ({b}, NULL, 'x', 'deadbeef', encode(sha256('mh_deadbeef_s'::bytea),'hex'), now(), '[\"admin\"]')"
    ),
    "insert a key for its own tenant": (
        "INSERT INTO banks_apikey (tenant_id, bank_id, name, prefix, secret_hash, created_at, scopes) "
        "VALUES ({a}, NULL, 'x', 'deadbee1', encode(sha256('mh_deadbee1_s'::bytea),'hex'), now(), '[\"admin\"]')"
    ),
    "un-revoke, widen and move another tenant's key": (
        "UPDATE banks_apikey SET revoked_at = NULL, expires_at = NULL, scopes = '[\"admin\"]', tenant_id = {a} "
        "WHERE tenant_id = {b}"
    ),
    "replace a key's secret": "UPDATE banks_apikey SET secret_hash = 'x' WHERE tenant_id = {b}",
    "insert a membership in another tenant": (
        "INSERT INTO banks_membership (tenant_id, user_id, role, created_at) VALUES ({b}, {user}, 'admin', now())"
    ),
    "insert a membership in its own tenant": (
        "INSERT INTO banks_membership (tenant_id, user_id, role, created_at) VALUES ({a}, {user}, 'admin', now())"
    ),
    "promote a membership": "UPDATE banks_membership SET role = 'admin' WHERE user_id = {user}",
    "make itself staff": "UPDATE auth_user SET is_staff = true WHERE id = {user}",
    "make itself superuser": "UPDATE auth_user SET is_superuser = true, is_active = true WHERE id = {user}",
    "set a password it knows": "UPDATE auth_user SET password = 'md5$x$x' WHERE id = {user}",
    "create an account": (
        "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email, is_staff, is_active, "
        "date_joined) VALUES ('x', true, 'intruder', '', '', '', true, true, now())"
    ),
    "give itself a model permission": (
        "INSERT INTO auth_user_user_permissions (user_id, permission_id) "
        "SELECT {user}, id FROM auth_permission WHERE codename = 'manage_tenants'"
    ),
    "join a group": "INSERT INTO auth_user_groups (user_id, group_id) VALUES ({user}, 1)",
    "insert a guardian permission on another tenant's bank": (
        "INSERT INTO banks_bankuserobjectpermission (permission_id, user_id, content_object_id) "
        "SELECT id, {user}, {bank_b} FROM auth_permission WHERE codename = 'admin_bank'"
    ),
    "insert a guardian permission on its own bank": (
        "INSERT INTO banks_bankuserobjectpermission (permission_id, user_id, content_object_id) "
        "SELECT id, {user}, {bank_a} FROM auth_permission WHERE codename = 'admin_bank'"
    ),
    "insert a generic guardian permission": (
        "INSERT INTO guardian_userobjectpermission (permission_id, user_id, content_type_id, object_pk) "
        "SELECT id, {user}, content_type_id, '{bank_b}' FROM auth_permission WHERE codename = 'admin_bank'"
    ),
    "read session keys": "SELECT session_key FROM django_session LIMIT 5",  # the review's exact SQL
    "read session data": "SELECT session_data FROM django_session",
    "write a session": (
        "INSERT INTO django_session (session_key, session_data, expire_date) "
        "VALUES ('k', 'd', now() + interval '1 day')"
    ),
    "write the admin log": (
        "INSERT INTO django_admin_log (action_time, object_repr, action_flag, change_message, user_id) "
        "VALUES (now(), 'x', 1, '', {user})"
    ),
    "insert a bank into another tenant": (
        "INSERT INTO banks_bank (tenant_id, slug, name, description, background, policy, vector_index_episodes, "
        "created_at, updated_at) VALUES ({b}, 'planted', 'p', '', '', '{{}}', 0, now(), now())"
    ),
    # The owner functions, called for a tenant the session does not hold the token of.
    "the key function, for another tenant": (
        "SELECT memoryhub_api_key_insert({b}, NULL, 'x', 'cafebabe', 'h', NULL, NULL, '[\"admin\"]', NULL, NULL)"
    ),
    "the revoke function, for another tenant": "SELECT * FROM memoryhub_api_keys_revoke({b}, ARRAY[{key_b}]::bigint[])",
    "the membership function, for another tenant": "SELECT memoryhub_membership_set({b}, {user}, 'admin')",
    "the permission function, on another tenant's bank": (
        "SELECT memoryhub_bank_permissions_set({bank_b}, {user}, ARRAY['admin_bank', 'view_bank'], '{{}}')"
    ),
    "the membership removal function, for another tenant": "SELECT memoryhub_membership_remove({b}, {member_b})",
}

# These reach only rows of the session's own tenant (row-level security on the catalogue tables): 0 rows of B's.
OTHER_TENANTS_ROWS_UNTOUCHED = {
    "delete another tenant's keys": "DELETE FROM banks_apikey WHERE tenant_id = {b}",
    "rename another tenant": "UPDATE banks_tenant SET name = 'owned', max_api_key_lifetime_days = NULL WHERE id = {b}",
    "turn off another tenant's defense": (
        'UPDATE banks_bank SET policy = \'{{"defense": {{"mode": "off"}}}}\', tenant_id = {a} WHERE tenant_id = {b}'
    ),
    "delete another tenant's bank roles": (
        "DELETE FROM banks_bankuserobjectpermission WHERE content_object_id = {bank_b}"
    ),
    "delete another tenant's bank": "DELETE FROM banks_bank WHERE tenant_id = {b}",
}


@pytest.fixture
def two_tenants_with_people(transactional_db):
    """Tenants A and B, each with a bank, an admin key and a person; B's person is a bank admin, signed in."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from banks.permissions import Role
    from banks.services.banks import bank_role_set, membership_set

    a, b = make_caller(), make_caller()
    users = get_user_model().objects
    intruder = users.create_user("intruder-a", password="pw-123456")
    membership_set(tenant=a.tenant, user=intruder, role="analyst")
    member_b = users.create_user("member-b", password="pw-123456")
    membership_set(tenant=b.tenant, user=member_b, role="analyst")
    bank_role_set(bank=b.bank, user=member_b, role=Role.BANK_ADMIN)
    browser = Client()
    browser.force_login(member_b)  # a session row exists to be stolen
    return a, b, intruder, member_b, browser


def _identity_state(b) -> dict:
    from django.contrib.auth import get_user_model

    from banks.models import ApiKey, Bank, BankUserObjectPermission, Membership, Tenant

    return {
        "keys": sorted(ApiKey.objects.values_list("prefix", "tenant_id", "scopes", "revoked_at", "secret_hash")),
        "memberships": sorted(Membership.objects.values_list("tenant_id", "user_id", "role")),
        "users": sorted(get_user_model().objects.values_list("username", "is_staff", "is_superuser", "password")),
        "user_permissions": get_user_model().user_permissions.through.objects.count(),
        "bank_permissions": sorted(BankUserObjectPermission.objects.values_list("user_id", "content_object_id")),
        "banks": sorted(Bank.objects.values_list("tenant_id", "slug", "policy")),
        "tenants": sorted(Tenant.objects.values_list("pk", "name", "max_api_key_lifetime_days")),
    }


def test_the_request_role_cannot_mint_access_for_any_tenant(two_tenants_with_people):
    """M2: every way the review found (and more) to create a credential, a role or a staff flag, or to read a
    session, is refused for the request role; B's key, people and banks are untouched, and the planted key of the
    review does not authenticate."""
    a, b, intruder, member_b, browser = two_tenants_with_people
    values = {
        "a": a.tenant.pk, "b": b.tenant.pk, "bank_a": a.bank.pk, "bank_b": b.bank.pk, "user": intruder.pk,
        "member_b": member_b.pk, "key_b": b.api_key.pk,
    }  # fmt: skip
    before = _identity_state(b)
    for name, statement in MINT_ACCESS.items():
        with request_role_connection() as raw:
            scope_session(raw, a.tenant.pk)
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                raw.execute(statement.format(**values))
            assert raw.info.transaction_status == psycopg.pq.TransactionStatus.IDLE, name
    for name, statement in OTHER_TENANTS_ROWS_UNTOUCHED.items():
        with request_role_connection() as raw:
            scope_session(raw, a.tenant.pk)
            assert raw.execute(statement.format(**values)).rowcount == 0, name
    assert _identity_state(b) == before
    planted = APIClient()
    planted.credentials(HTTP_AUTHORIZATION="Bearer mh_deadbeef_s")
    assert planted.get(f"/api/v1/banks/{b.bank.slug}/export").status_code == 401
    assert browser.get(f"/t/{b.tenant.slug}/banks/{b.bank.slug}/settings/api-keys/").status_code == 200  # still in


def test_the_request_role_holds_exactly_its_listed_privileges(db):
    """Identity tables: read, plus the two columns authentication writes; sessions: nothing; memory: row access."""
    from memoryhub.database import REQUEST_ROLE_TABLE_GRANTS

    role = request_role()
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.relname, has_table_privilege(%s, c.oid, 'SELECT'), has_table_privilege(%s, c.oid, 'INSERT'),
                      has_table_privilege(%s, c.oid, 'UPDATE'), has_table_privilege(%s, c.oid, 'DELETE'),
                      has_table_privilege(%s, c.oid, 'TRUNCATE')
               FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = 'public' AND c.relkind = 'r'""",
            [role] * 5,
        )
        table_privileges = {row[0]: row[1:] for row in cursor.fetchall()}
        cursor.execute(
            """SELECT table_name, column_name FROM information_schema.column_privileges
               WHERE grantee = %s AND privilege_type = 'UPDATE' AND table_schema = 'public'
                 AND table_name IN ('banks_apikey', 'auth_user', 'banks_membership')""",
            [role],
        )
        updatable = sorted(cursor.fetchall())
    assert table_privileges["banks_apikey"] == (True, False, False, True, False)
    assert table_privileges["banks_membership"] == (True, False, False, False, False)
    assert table_privileges["auth_user"] == (True, False, False, False, False)
    for table in ("django_session", "django_admin_log"):
        assert table_privileges[table] == (False, False, False, False, False), table
    for table in ("banks_bankuserobjectpermission", "guardian_userobjectpermission", "auth_user_user_permissions",
                  "auth_user_groups", "auth_group_permissions", "auth_permission"):  # fmt: skip
        assert table_privileges[table][1:3] == (False, False), table
    assert updatable == [("auth_user", "last_login"), ("banks_apikey", "last_used_at")]
    for table in protected_tables():
        assert table_privileges[table] == (True, True, True, True, False), table
    unlisted = set(table_privileges) - set(REQUEST_ROLE_TABLE_GRANTS) - set(protected_tables())
    assert unlisted and all(table_privileges[t] == (True, False, False, False, False) for t in unlisted), unlisted


def test_migrate_takes_back_what_an_earlier_install_granted(db):
    """An install from before least privilege gave the request role every row privilege on every table: the grants
    that run after each ``migrate`` revoke the identity writes and the session table (and set the defaults)."""
    from django.apps import apps

    from memoryhub.apps import grant_request_role_after_migrate

    role = request_role()
    with connection.cursor() as cursor:  # what grant_request_role did before (rolled back with the test)
        cursor.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "{role}"')
        cursor.execute(f'ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT INSERT, UPDATE, DELETE ON TABLES TO "{role}"')
        cursor.execute("SELECT has_table_privilege(%s, 'banks_apikey', 'INSERT')", [role])
        assert cursor.fetchone()[0] is True
    grant_request_role_after_migrate(sender=apps.get_app_config("beliefs"), using="default")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT has_table_privilege(%s, 'banks_apikey', 'INSERT'), has_table_privilege(%s, 'auth_user', 'UPDATE'),"
            " has_column_privilege(%s, 'auth_user', 'last_login', 'UPDATE'),"
            " has_table_privilege(%s, 'django_session', 'SELECT'),"
            " has_table_privilege(%s, 'beliefs_episode', 'INSERT')",
            [role] * 5,
        )
        assert cursor.fetchone() == (False, False, True, False, True)
        cursor.execute(
            "SELECT array_agg(DISTINCT a.privilege_type) FROM pg_default_acl d, aclexplode(d.defaclacl) a "
            "WHERE d.defaclobjtype = 'r' AND a.grantee = (SELECT oid FROM pg_roles WHERE rolname = %s)",
            [role],
        )
        assert cursor.fetchone()[0] == ["SELECT"]


@pytest.mark.django_db(transaction=True)
def test_a_recall_run_on_the_request_s_own_connection_while_another_is_in_flight_sees_only_its_tenant():
    # A busy process runs a recall's channel reads on the request's connection, inside its transaction and scope.
    from beliefs.services.recall.runner import channel_runner

    a, b = make_caller(), make_caller()
    retain(bank=a.bank, items=[RetainItem(content="alpha note about the disk")])
    retain(bank=b.bank, items=[RetainItem(content="beta note about the disk")])
    with channel_runner().batch(tenant_id=a.tenant.pk) as in_flight:
        assert in_flight.parallel
        for caller, mine, theirs in [(a, "alpha", "beta"), (b, "beta", "alpha"), (a, "alpha", "beta")]:
            recalled = caller.client.post(
                caller.url("recall"), {"query": "note about the disk", "budget_tokens": 100}, format="json"
            )
            assert recalled.status_code == 200
            contents = [item["text"] for item in recalled.json()["items"]]
            assert contents and all(mine in text and theirs not in text for text in contents)
            with connection.cursor() as cursor:
                cursor.execute("SELECT coalesce(current_setting('app.tenant_id', true), ''), current_user")
                assert cursor.fetchone() == ("", MAINTENANCE_ROLE)  # nothing of the request's scope is left
