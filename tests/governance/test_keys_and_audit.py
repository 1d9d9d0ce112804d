"""API keys with scopes, expiry and rate limits (the audit trail is in tests/audit)."""

import json
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from audit.models import AuditEvent
from banks.models import ApiKey
from banks.services.api_keys import api_key_issue
from beliefs.models import Episode
from tests.helpers.callers import make_caller

pytestmark = pytest.mark.django_db


def client_for(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    return client


def test_read_scope_can_recall_but_not_retain_or_change_policy(caller):
    reader = client_for(api_key_issue(tenant=caller.tenant, name="r", scopes=["read"]).raw_key)
    ok = reader.post(caller.url("recall"), {"query": "x", "budget_tokens": 50}, format="json")
    assert ok.status_code == 200
    refused = reader.post(caller.url("retain"), {"items": [{"content": "x"}]}, format="json")
    assert refused.status_code == 403 and "'write' scope" in refused.json()["detail"]
    assert not Episode.objects.filter(bank=caller.bank).exists()
    writer = client_for(api_key_issue(tenant=caller.tenant, name="w", scopes=["write"]).raw_key)
    assert writer.post(caller.url("retain"), {"items": [{"content": "x"}]}, format="json").status_code == 201
    assert writer.patch(caller.url(""), {"description": "d"}, format="json").status_code == 403
    assert writer.post("/api/v1/erasure-requests/", {"subject": "s"}, format="json").status_code == 403
    assert writer.get(caller.url("audit-events/")).status_code == 403


def test_expired_and_revoked_keys_are_refused(caller):
    expired = api_key_issue(tenant=caller.tenant, name="old", expires_at=timezone.now() - timedelta(seconds=1))
    response = client_for(expired.raw_key).get(caller.url(""))
    assert response.status_code == 401 and response.json()["code"] == "authentication_failed"
    soon = api_key_issue(tenant=caller.tenant, name="soon", expires_at=timezone.now() + timedelta(hours=1))
    assert client_for(soon.raw_key).get(caller.url("")).status_code == 200


def test_admins_issue_list_and_revoke_keys_and_the_secret_is_shown_once(caller):
    issued = caller.client.post(
        "/api/v1/api-keys/",
        {"name": "ingest", "bank": caller.bank.slug, "scopes": ["write"], "rate_limit_per_minute": 5},
        format="json",
    ).json()
    assert issued["key"].startswith(f"mh_{issued['prefix']}_") and issued["scopes"] == ["write"]
    listed = caller.client.get("/api/v1/api-keys/").json()["results"]
    row = next(r for r in listed if r["prefix"] == issued["prefix"])
    assert "key" not in row and row["bank"] == caller.bank.slug and row["active"] is True
    new_client = client_for(issued["key"])
    assert new_client.post(caller.url("retain"), {"items": [{"content": "x"}]}, format="json").status_code == 201
    assert caller.client.delete(f"/api/v1/api-keys/{issued['prefix']}").status_code == 204
    assert new_client.get(caller.url("")).status_code == 401
    actions = list(AuditEvent.objects.filter(tenant=caller.tenant).values_list("action", flat=True))
    assert {"api_key.issued", "api_key.revoked"} <= set(actions)
    # Keys of another tenant are out of reach; bank-scoped or non-admin keys cannot manage keys.
    other = make_caller()
    assert other.client.delete(f"/api/v1/api-keys/{issued['prefix']}").status_code == 404
    scoped = make_caller(bank=caller.bank, bank_scoped=True)
    assert scoped.client.get("/api/v1/api-keys/").status_code == 403


def test_rate_limit_answers_429_with_retry_after(caller):
    limited = api_key_issue(tenant=caller.tenant, name="tight", rate_limit_per_minute=3)
    client = client_for(limited.raw_key)
    statuses = [client.get(caller.url("")).status_code for _ in range(5)]
    assert statuses[:3] == [200, 200, 200] and statuses[3:] == [429, 429]
    response = client.get(caller.url(""))
    assert response.json()["code"] == "rate_limited"
    assert 1 <= int(response["Retry-After"]) <= 60
    assert caller.client.get(caller.url("")).status_code == 200  # other keys keep their own allowance


def test_key_scopes_are_validated(caller):
    bad = caller.client.post("/api/v1/api-keys/", {"name": "x", "scopes": ["root"]}, format="json")
    assert bad.status_code == 400
    assert ApiKey.objects.filter(tenant=caller.tenant).count() == 1


# --- M4, L11: a key is held to whoever made it --------------------------------------------------------------------


@pytest.fixture
def acme(db, settings):
    """The review's tenant: a tenant admin, and Bob, bank admin of ``ops``; each signed in to the dashboard."""
    from django.test import Client

    from banks.permissions import Role
    from tests.factories import BankFactory, TenantFactory
    from tests.helpers.builders import make_user

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    tenant = TenantFactory(slug="acme")
    bank = BankFactory(tenant=tenant, slug="ops")
    people = {
        "admin": make_user("tenant-admin", tenant=tenant, bank=bank, role=Role.TENANT_ADMIN),
        "bob": make_user("bob", tenant=tenant, bank=bank, role=Role.BANK_ADMIN),
    }
    clients = {}
    for name, user in people.items():
        clients[name] = Client()
        clients[name].force_login(user)
    return SimpleNamespace(tenant=tenant, bank=bank, people=people, clients=clients)


def _dashboard_key(client, path: str, **fields) -> str:
    """Issue a key on a dashboard key page; the secret the next page shows once."""
    response = client.post(path, {"action": "create", "name": "k", "scopes": ["read", "write"], **fields})
    assert response.status_code == 200, response.content.decode()[:2000]
    return response.content.decode().split('<code id="new-key">')[1].split("</code>")[0]


def test_a_bank_admin_cannot_mint_an_admin_scoped_never_expiring_key_at_a_million_per_minute(acme):
    """M4/L11, the review's request: Bob (bank admin) asks for read, write and admin, no expiry, 1,000,000/min."""
    page = "/t/acme/banks/ops/settings/api-keys/"
    refused = acme.clients["bob"].post(page, {"name": "x", "scopes": ["read", "write", "admin"], "expires": "",
                                              "rate_limit_per_minute": "1000000"})  # fmt: skip
    body = refused.content.decode()
    assert refused.status_code == 400 and "Select a valid choice. admin is not one of the available choices." in body
    assert "Ensure this value is less than or equal to 3000." in body
    assert 'value="admin"' not in body  # not offered to a bank admin at all
    assert not ApiKey.objects.filter(tenant=acme.tenant).exists()
    # The service refuses it too, whatever the form offers.
    from banks.permissions import Role
    from banks.services.api_keys import api_key_issue
    from memoryhub.exceptions import ApiKeyScopeNotGrantable

    with pytest.raises(ApiKeyScopeNotGrantable) as refusal:
        api_key_issue(tenant=acme.tenant, bank=acme.bank, name="x", created_by=acme.people["bob"],
                      granter_role=Role.BANK_ADMIN, scopes=["read", "admin"])  # fmt: skip
    assert refusal.value.extra == {"refused": ["admin"], "grantable": ["read", "write", "review"]}
    # What a bank admin may issue does not reach the tenant-admin API powers (export, audit API, policy).
    raw = _dashboard_key(acme.clients["bob"], page)
    bobs = client_for(raw)
    assert bobs.get("/api/v1/banks/ops/export").status_code == 403
    assert bobs.get("/api/v1/banks/ops/audit-events/").status_code == 403
    assert bobs.patch("/api/v1/banks/ops/", {"policy": {"defense": {"mode": "off"}}}, format="json").status_code == 403
    # A tenant admin may grant admin (their own powers).
    admin_page = acme.clients["admin"].get("/t/acme/api-keys/").content.decode()
    assert 'value="admin"' in admin_page


def test_removing_a_member_revokes_the_keys_they_issued(acme):
    """M4, the review's scenario: Bob's key stops working the moment the tenant admin removes him; audited."""
    raw = _dashboard_key(acme.clients["bob"], "/t/acme/banks/ops/settings/api-keys/")
    bobs = client_for(raw)
    assert bobs.get("/api/v1/banks/ops/").status_code == 200
    bob = acme.people["bob"]
    removed = acme.clients["admin"].post("/t/acme/members/", {"action": "remove", "user": bob.pk})
    assert removed.status_code == 302
    assert bobs.get("/api/v1/banks/ops/export").status_code == 401
    assert bobs.patch("/api/v1/banks/ops/", {"policy": {"defense": {"mode": "off"}}}, format="json").status_code == 401
    key = ApiKey.objects.get(tenant=acme.tenant, created_by=bob)
    assert key.revoked_at is not None
    event = AuditEvent.objects.get(tenant=acme.tenant, action="api_key.revoked", target=f"api_key:{key.prefix}")
    assert event.actor == "user:tenant-admin" and event.details == {"reason": "creator user:bob left the tenant"}


def test_lowering_a_role_revokes_the_keys_issued_with_it(acme):
    """M4: a bank admin made reviewer loses the bank's keys they issued; a tenant admin made member loses theirs."""
    bob = acme.people["bob"]
    bobs = client_for(_dashboard_key(acme.clients["bob"], "/t/acme/banks/ops/settings/api-keys/"))
    other = client_for(api_key_issue(tenant=acme.tenant, bank=acme.bank, name="not bob's").raw_key)
    changed = acme.clients["admin"].post("/t/acme/banks/ops/settings/members/",
                                         {"action": "role", "user": bob.pk, "role": "reviewer"})  # fmt: skip
    assert changed.status_code == 302
    assert bobs.get("/api/v1/banks/ops/").status_code == 401
    assert other.get("/api/v1/banks/ops/").status_code == 200  # only the keys that person issued
    reasons = AuditEvent.objects.filter(tenant=acme.tenant, action="api_key.revoked").values_list("details", flat=True)
    assert list(reasons) == [{"reason": "creator user:bob is no longer bank admin"}]

    from banks.permissions import Role
    from banks.services.banks import membership_set
    from tests.helpers.builders import make_user

    carol = make_user("carol", tenant=acme.tenant, bank=None, role=Role.TENANT_ADMIN)
    carols = client_for(api_key_issue(tenant=acme.tenant, name="carol's", created_by=carol, scopes=["admin"]).raw_key)
    membership_set(tenant=acme.tenant, user=carol, role="admin", actor="user:tenant-admin")  # unchanged: kept
    assert carols.get("/api/v1/banks/ops/").status_code == 200
    acme.clients["admin"].post("/t/acme/members/", {"action": "role", "user": carol.pk, "role": "member"})
    assert carols.get("/api/v1/banks/ops/").status_code == 401
    assert other.get("/api/v1/banks/ops/").status_code == 200


def test_a_key_issued_by_a_key_records_its_parent_and_never_exceeds_or_outlives_it(caller):
    """M4: an expiring admin key cannot make a permanent (or longer-lived, faster) key; revoking it revokes its
    children; the child names its parent."""
    from datetime import UTC, datetime

    soon = timezone.now() + timedelta(hours=1)
    parent = api_key_issue(tenant=caller.tenant, name="parent", scopes=["admin"], expires_at=soon,
                           rate_limit_per_minute=10)  # fmt: skip
    issuer = client_for(parent.raw_key)
    later = (soon + timedelta(hours=1)).astimezone(UTC).isoformat()
    refused = issuer.post("/api/v1/api-keys/", {"name": "forever", "expires_at": later}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "api_key_lifetime_exceeded"
    faster = issuer.post("/api/v1/api-keys/", {"name": "fast", "rate_limit_per_minute": 11}, format="json")
    assert faster.status_code == 400 and faster.json() == {
        "code": "api_key_rate_limit_too_high",
        "detail": faster.json()["detail"],
        "extra": {"max": 10},
    }
    issued = issuer.post("/api/v1/api-keys/", {"name": "child", "scopes": ["read", "write"]}, format="json").json()
    assert issued["created_by_key"] == parent.api_key.prefix and issued["created_by"] is None
    assert datetime.fromisoformat(issued["expires_at"]) == soon and issued["rate_limit_per_minute"] == 10
    grandchild = client_for(issued["key"]).post("/api/v1/api-keys/", {"name": "g"}, format="json")
    assert grandchild.status_code == 403  # a key without the admin scope issues nothing
    listed = {row["prefix"]: row for row in caller.client.get("/api/v1/api-keys/").json()["results"]}
    assert listed[issued["prefix"]]["created_by_key"] == parent.api_key.prefix
    child = client_for(issued["key"])
    assert child.get(caller.url("")).status_code == 200
    assert caller.client.delete(f"/api/v1/api-keys/{parent.api_key.prefix}").status_code == 204
    assert child.get(caller.url("")).status_code == 401  # went with its parent
    event = AuditEvent.objects.get(action="api_key.revoked", target=f"api_key:{issued['prefix']}")
    assert event.details == {"reason": f"issuing key api_key:{parent.api_key.prefix} revoked"}
    # A key never grants a scope it does not hold itself (the service, below the API's admin-only gate).
    from banks.services.api_keys import api_key_issue as issue
    from memoryhub.exceptions import ApiKeyScopeNotGrantable

    writer = api_key_issue(tenant=caller.tenant, name="writer", scopes=["write"]).api_key
    with pytest.raises(ApiKeyScopeNotGrantable):
        issue(tenant=caller.tenant, name="x", created_by_key=writer, scopes=["admin"])


def test_a_tenants_maximum_key_lifetime_holds_in_the_api_the_dashboard_and_the_cli(acme, capsys):
    """M4: the tenant sets 30 days; a longer key is refused with ``api_key_lifetime_exceeded`` everywhere, and a
    key asked for without an expiry gets 30 days."""
    from mhctl.main import main

    admin = acme.clients["admin"]
    saved = admin.post("/t/acme/settings/", {"action": "key-lifetime", "max_api_key_lifetime_days": "30"})
    assert saved.status_code == 302
    acme.tenant.refresh_from_db()
    assert acme.tenant.max_api_key_lifetime_days == 30
    event = AuditEvent.objects.get(tenant=acme.tenant, action="tenant.updated")
    assert event.details == {"fields": ["max_api_key_lifetime_days"], "max_api_key_lifetime_days": 30}
    key = api_key_issue(tenant=acme.tenant, name="bootstrap", scopes=["admin"]).api_key  # an operator's: 30 days too
    assert timedelta(days=29, hours=23) < key.expires_at - timezone.now() <= timedelta(days=30)
    # API
    api = APIClient()
    api.force_authenticate(acme.people["admin"])
    too_long = (timezone.now() + timedelta(days=31)).isoformat()
    refused = api.post("/api/v1/api-keys/", {"name": "long", "expires_at": too_long}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "api_key_lifetime_exceeded"
    assert refused.json()["extra"]["max_lifetime_days"] == 30
    defaulted = api.post("/api/v1/api-keys/", {"name": "default"}, format="json").json()
    assert defaulted["created_by"] == "tenant-admin"
    assert timedelta(days=29) < datetime_from(defaulted["expires_at"]) - timezone.now() <= timedelta(days=30)
    # Dashboard: "Never" is not offered; 90 days is refused; "Longest allowed" gives 30 days.
    page = admin.get("/t/acme/api-keys/").content.decode()
    assert "Longest allowed (30 days)" in page and ">Never<" not in page and "In 90 days" not in page
    ninety = admin.post("/t/acme/api-keys/", {"action": "create", "name": "n", "scopes": ["read"], "expires": "90"})
    assert ninety.status_code == 400 and not ApiKey.objects.filter(name="n").exists()
    far = (timezone.now() + timedelta(days=45)).date().isoformat()
    dated = admin.post("/t/acme/api-keys/", {"action": "create", "name": "d", "scopes": ["read"], "expires": "date",
                                            "expires_on": far})  # fmt: skip
    assert dated.status_code == 400 and "keys live at most 30 days." in dated.content.decode()
    _dashboard_key(admin, "/t/acme/api-keys/", name="longest", expires="")
    longest = ApiKey.objects.get(name="longest")
    assert timedelta(days=29) < longest.expires_at - timezone.now() <= timedelta(days=30)
    # CLI (database mode): the same code, as JSON on stderr
    with pytest.raises(SystemExit) as exited:
        main(["--db", "--json", "key", "create", "cli-long", "--tenant", "acme", "--expires-in-days", "31"])
    assert exited.value.code == 2
    assert json.loads(capsys.readouterr().err)["code"] == "api_key_lifetime_exceeded"
    assert not ApiKey.objects.filter(name="cli-long").exists()


def test_a_keys_rate_limit_is_capped_at_its_tenants(caller):
    """M4: no key is set above the tenant's window (3,000/min by default): more could never be used anyway."""
    refused = caller.client.post("/api/v1/api-keys/", {"name": "x", "rate_limit_per_minute": 5000}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "api_key_rate_limit_too_high"
    assert refused.json()["extra"] == {"max": 3000}
    million = caller.client.post("/api/v1/api-keys/", {"name": "x", "rate_limit_per_minute": 10**6}, format="json")
    assert million.status_code == 400
    assert ApiKey.objects.filter(tenant=caller.tenant).count() == 1


def test_a_key_stops_working_when_its_creators_account_is_deactivated(acme):
    raw = _dashboard_key(acme.clients["bob"], "/t/acme/banks/ops/settings/api-keys/")
    assert client_for(raw).get("/api/v1/banks/ops/").status_code == 200
    bob = acme.people["bob"]
    bob.is_active = False
    bob.save(update_fields=["is_active"])
    assert client_for(raw).get("/api/v1/banks/ops/").status_code == 401


def datetime_from(value: str):
    from datetime import datetime

    return datetime.fromisoformat(value)


def test_authenticating_a_key_is_one_statement_and_its_tenant_and_bank_load_when_read(caller):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from banks.services.api_keys import api_key_authenticate

    issued = api_key_issue(tenant=caller.tenant, name="one", bank=caller.bank, scopes=["read"])
    assert api_key_authenticate(raw_key=issued.raw_key).pk == issued.api_key.pk  # records its first use
    with CaptureQueriesContext(connection) as queries:
        key = api_key_authenticate(raw_key=issued.raw_key)
    assert len(queries) == 1 and "banks_apikey" in queries[0]["sql"]
    assert (key.pk, key.tenant_id, key.bank_id) == (issued.api_key.pk, caller.tenant.pk, caller.bank.pk)
    assert key.scopes == ["read"]
    assert (key.tenant.slug, key.bank.slug) == (caller.tenant.slug, caller.bank.slug)
    # A bearer naming the statement's stand-in, or another tenant's prefix with this secret, finds nothing.
    secret = issued.raw_key.split("_", 2)[2]
    assert api_key_authenticate(raw_key=f"mh_<prefix stand-in>_{secret}") is None
    other = api_key_issue(tenant=make_caller().tenant, name="x")
    assert api_key_authenticate(raw_key=f"mh_{other.api_key.prefix}_{secret}") is None
