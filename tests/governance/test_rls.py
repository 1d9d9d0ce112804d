"""Row-level security beneath the ORM: foreign rows stay invisible even when a query forgets its filter."""

import psycopg
import pytest
from django.db import connection, transaction

from beliefs.models import Belief, Episode
from beliefs.services.retain import RetainItem, retain
from beliefs.tasks import extract_bank_task
from memoryhub.tenancy import _set, set_request_tenant, tenant_scope
from tests.beliefs.consolidation_helpers import T0, days, dismissal
from tests.conftest import make_caller

# Tenant catalogue tables: needed to authenticate and resolve a bank before any tenant is known; no memory content.
EXEMPT = {"banks_bank", "banks_membership", "banks_apikey"}


def _raw_connection(**extra):
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("options", None)  # no start-up bypass: a plain application session
    return psycopg.connect(**params, autocommit=True, **extra)


@pytest.mark.django_db
def test_every_table_with_a_tenant_or_bank_column_has_a_forced_policy():
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT DISTINCT c.table_name FROM information_schema.columns c
               JOIN information_schema.tables t ON t.table_name = c.table_name AND t.table_schema = c.table_schema
               WHERE c.table_schema = 'public' AND c.column_name IN ('tenant_id', 'bank_id')
                 AND t.table_type = 'BASE TABLE'"""
        )
        owned = {row[0] for row in cursor.fetchall()} - EXEMPT
        cursor.execute(
            """SELECT relname FROM pg_class WHERE relrowsecurity AND relforcerowsecurity
               AND relname IN (SELECT tablename FROM pg_policies WHERE policyname = 'tenant_isolation')"""
        )
        protected = {row[0] for row in cursor.fetchall()}
        cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False, False)
    assert len(owned) >= 15
    assert owned - protected == set()


@pytest.mark.django_db(transaction=True)
def test_raw_sql_without_the_setting_returns_no_rows():
    a, b = make_caller(), make_caller()
    retain(bank=a.bank, items=[RetainItem(content="tenant a secret")])
    retain(bank=b.bank, items=[RetainItem(content="tenant b secret")])
    with _raw_connection() as raw:
        assert raw.execute("SELECT count(*) FROM beliefs_episode").fetchone()[0] == 0
        assert raw.execute("SELECT count(*) FROM beliefs_bankterm").fetchone()[0] == 0
        raw.execute("SELECT set_config('app.tenant_id', %s, false)", [str(a.tenant.pk)])
        assert raw.execute("SELECT content FROM beliefs_episode").fetchall() == [("tenant a secret",)]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # WITH CHECK: no writing into another tenant
            raw.execute("UPDATE beliefs_episode SET tenant_id = %s WHERE tenant_id = %s", [b.tenant.pk, a.tenant.pk])


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
            cursor.execute("SELECT coalesce(current_setting('app.tenant_id', true), '')")
            assert cursor.fetchone()[0] == ""


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
    _set(str(a.tenant.pk), "off", local=False)
    try:
        outcome = extract_bank_task.apply(kwargs={"bank_id": b.bank.pk})
        assert outcome.successful(), outcome.traceback
    finally:
        _set("", "on", local=False)
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
    with _raw_connection() as raw:
        assert raw.execute("SELECT count(*) FROM beliefs_episode").fetchone()[0] == 0
