"""One service layer, two front ends: an admin change made in the browser and through the API leaves the same rows."""

from __future__ import annotations

from django.forms.models import model_to_dict
from rest_framework.test import APIClient

from audit.models import AuditEvent
from banks.models import ApiKey
from banks.permissions import Role
from beliefs.models import DefenseRescan, ErasureRequest
from tests.helpers.builders import bank_path

VOLATILE = {"id", "created_at", "request_id"}


def _event(**lookup) -> dict:
    event = AuditEvent.objects.get(**lookup)
    return {k: v for k, v in model_to_dict(event).items() if k not in VOLATILE}


def _clients(ops):
    web, api = APIClient(), APIClient()
    admin = ops.users[Role.TENANT_ADMIN]
    web.force_login(admin)
    api.force_login(admin)  # the same person through the API, with a session
    return web, api


def test_a_key_issued_in_the_browser_leaves_the_same_rows_as_through_the_api(ops):
    web, api = _clients(ops)
    web.post(
        f"/t/{ops.tenant.slug}/api-keys/",
        {"action": "create", "name": "agent", "bank": "ops", "scopes": ["read", "write"], "rate_limit_per_minute": 90},
    )
    response = api.post(
        "/api/v1/api-keys/",
        {"name": "agent", "bank": "ops", "scopes": ["read", "write"], "rate_limit_per_minute": 90},
        format="json",
    )
    assert response.status_code == 201
    browser_key, api_key = ApiKey.objects.filter(tenant=ops.tenant, name="agent").order_by("id")
    fields = ["tenant", "bank", "name", "scopes", "expires_at", "rate_limit_per_minute", "created_by", "revoked_at"]
    assert model_to_dict(browser_key, fields) == model_to_dict(api_key, fields)
    browser_event = _event(target=f"api_key:{browser_key.prefix}")
    api_event = _event(target=f"api_key:{api_key.prefix}")
    assert {**browser_event, "target": ""} == {**api_event, "target": ""}
    assert (
        browser_event["action"] == "api_key.issued" and browser_event["actor"] == f"user:{ops.users[Role.TENANT_ADMIN]}"
    )


def test_a_policy_change_in_the_browser_leaves_the_same_rows_as_through_the_api(
    ops, django_capture_on_commit_callbacks
):
    web, api = _clients(ops)
    ops.bank.policy = {"defense": {"mode": "off"}}
    ops.bank.save()
    form = web.get(bank_path(ops, "settings/policy/")).context["form"]
    data = {k: v for k, v in form.initial.items() if v is not None and v is not False}
    data.update({"disposition__skepticism": "0.5", "decay__horizon_days": "60", "defense__mode": "block"})
    with django_capture_on_commit_callbacks():
        assert web.post(bank_path(ops, "settings/policy/"), data).status_code == 302
    ops.bank.refresh_from_db()
    browser_policy = ops.bank.policy
    browser_event = _event(bank=ops.bank, action="bank.updated")
    browser_rescan = DefenseRescan.objects.get(bank=ops.bank)
    # Put the bank back, then make the same change through the API.
    AuditEvent.objects.filter(bank=ops.bank, action="bank.updated").delete()
    DefenseRescan.objects.filter(bank=ops.bank).delete()
    ops.bank.policy = {"defense": {"mode": "off"}}
    ops.bank.save()
    with django_capture_on_commit_callbacks():
        response = api.patch(f"/api/v1/banks/{ops.bank.slug}/", {"policy": browser_policy}, format="json")
    assert response.status_code == 200 and response.json()["defense_rescan"]["status"] == "pending"
    ops.bank.refresh_from_db()
    assert (
        ops.bank.policy
        == browser_policy
        == {
            "defense": {"mode": "block"},
            "decay": {"horizon_days": 60.0},
            "disposition": {"skepticism": 0.5},
        }
    )
    assert _event(bank=ops.bank, action="bank.updated") == browser_event
    api_rescan = DefenseRescan.objects.get(bank=ops.bank)
    assert (api_rescan.status, api_rescan.total) == (browser_rescan.status, browser_rescan.total)


def test_an_erasure_filed_in_the_browser_leaves_the_same_rows_as_through_the_api(
    ops, eager_tasks, django_capture_on_commit_callbacks
):
    web, api = _clients(ops)
    with django_capture_on_commit_callbacks() as queued:
        web.post(
            bank_path(ops, "settings/erasure/"),
            {"subject": "host:db-01", "aliases": "db-01\n  \ndb01.internal\ndb-01", "confirm": "on"},
        )
    # Filed with the aliases (blank lines and repeats dropped); the run erases them with the subject.
    assert ErasureRequest.objects.get(bank=ops.bank).aliases == ["db-01", "db01.internal"]
    for run in queued:
        run()
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/api/v1/erasure-requests/",
            {"subject": "host:db-01", "aliases": ["db-01", "db01.internal"], "bank": "ops"},
            format="json",
        )
    assert response.status_code == 202
    browser, through_api = ErasureRequest.objects.filter(bank=ops.bank).order_by("id")
    fields = ["tenant", "bank", "scope", "subject", "aliases", "subject_hash", "status", "requested_by"]
    assert model_to_dict(browser, fields) == model_to_dict(through_api, fields)
    assert browser.aliases == []
    assert browser.status == "done" and browser.receipt["removed"]["episodes"] > 0
    # The second run finds nothing left: an empty receipt of the same shape.
    assert set(through_api.receipt) == set(browser.receipt) and through_api.receipt["removed"].get("episodes", 0) == 0
    events = [_event(target=f"erasure:{e.pk}", action="erasure.requested") for e in (browser, through_api)]
    assert {**events[0], "target": ""} == {**events[1], "target": ""}
