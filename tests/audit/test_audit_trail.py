"""The audit trail: who did what, when and under which request id, never the content; its page and CSV export."""

from __future__ import annotations

import pytest

from audit.models import AuditEvent
from audit.services import audit_record
from banks.permissions import Role
from tests.helpers.builders import bank_path
from tests.helpers.callers import make_caller

pytestmark = pytest.mark.django_db


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


def test_audit_log_filters_pages_with_a_cursor_and_exports_the_same_rows_as_csv(client_as, ops):
    for n in range(120):
        audit_record(tenant=ops.tenant, bank=ops.bank, action="episodes.retained", target=f"retain_batch:{n}",
                     actor="api-key:abc")  # fmt: skip
    audit_record(
        tenant=ops.tenant, bank=ops.bank, action="api_key.issued", target="api_key:1234", actor="=cmd|'/c calc'!A1"
    )
    client = client_as(Role.BANK_ADMIN)
    first = client.get(bank_path(ops, "settings/audit/?action=episodes.retained"))
    html = first.content.decode()
    assert html.count("<td><code>episodes.retained</code></td>") == 50
    assert "retain_batch:119" in html and "retain_batch:69" not in html
    following = first.context["following"]
    second = client.get(bank_path(ops, "settings/audit/"), {"action": "episodes.retained", "before": following})
    second = second.content.decode()
    assert "retain_batch:69" in second and "retain_batch:119" not in second
    audit_record(tenant=ops.tenant, bank=ops.bank, action="erasure.requested", target="erasure:77", actor="user:x")
    linked = client.get(bank_path(ops, "settings/audit/?action=erasure.")).content.decode()
    assert f'<a href="{bank_path(ops, "settings/erasure/77/")}">erasure:77</a>' in linked
    family = client.get(bank_path(ops, "settings/audit/?action=api_key.")).content.decode()
    assert "api_key:1234" in family and "retain_batch" not in family
    csv_response = client.get(bank_path(ops, "settings/audit/?action=episodes.retained&format=csv"))
    assert csv_response["Content-Type"].startswith("text/csv")
    lines = b"".join(csv_response.streaming_content).decode().splitlines()
    assert lines[0] == "time,actor,action,bank,target,request_id,details"
    assert len(lines) == 121 and lines[1].split(",")[4] == "retain_batch:119"
    export = b"".join(client.get(bank_path(ops, "settings/audit/?format=csv&action=api_key.")).streaming_content)
    assert "'=cmd|" in export.decode()  # a formula is defused for spreadsheets
    bad = client.get(bank_path(ops, "settings/audit/?since=yesterday")).content.decode()
    assert "Enter a valid date." in bad
