"""API keys with scopes, expiry and rate limits; the audit trail."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from audit.models import AuditEvent
from banks.models import ApiKey
from banks.services.api_keys import api_key_issue
from beliefs.models import Episode
from tests.conftest import make_caller

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


def test_audit_trail_records_who_what_when_and_request_id_without_content(caller):
    secret_text = "quarterly plan for project heron"
    response = caller.client.post(
        caller.url("retain"), {"items": [{"content": secret_text}]}, format="json", HTTP_X_REQUEST_ID="req-42"
    )
    assert response["X-Request-ID"] == "req-42"
    episode_id = response.json()["items"][0]["episode_id"]
    caller.client.delete(caller.url(f"episodes/{episode_id}"))
    caller.client.patch(caller.url(""), {"policy": {"defense": {"mode": "block"}}}, format="json")
    events = caller.client.get(caller.url("audit-events/")).json()["results"]
    assert [e["action"] for e in events] == ["bank.updated", "episode.deleted", "episodes.retained"]
    retained = events[-1]
    assert retained["actor"] == f"api-key:{caller.api_key.prefix}" and retained["request_id"] == "req-42"
    assert retained["details"]["created"] == 1
    assert secret_text not in str(events)
    only = caller.client.get(caller.url("audit-events/"), {"action": "episode.deleted"}).json()["results"]
    assert [e["target"] for e in only] == [f"episode:{episode_id}"]
    other = make_caller()
    assert other.client.get(caller.url("audit-events/")).status_code == 404


def test_key_scopes_are_validated(caller):
    bad = caller.client.post("/api/v1/api-keys/", {"name": "x", "scopes": ["root"]}, format="json")
    assert bad.status_code == 400
    assert ApiKey.objects.filter(tenant=caller.tenant).count() == 1


def test_permission_changes_are_audited(caller):
    from banks.services.banks import bank_access_grant, membership_set
    from tests.factories import UserFactory

    user = UserFactory()
    membership_set(tenant=caller.tenant, user=user, role="analyst", actor="user:admin")
    bank_access_grant(bank=caller.bank, user=user, write=True, actor="user:admin")
    events = AuditEvent.objects.filter(tenant=caller.tenant).order_by("id")
    assert [(e.action, e.actor, e.target) for e in events] == [
        ("membership.set", "user:admin", f"user:{user.username}"),
        ("permission.granted", "user:admin", f"user:{user.username}"),
    ]
