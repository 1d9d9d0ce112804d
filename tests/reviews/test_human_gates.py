"""Human gates on human credentials: review decisions and analyst verdicts need a person or a ``review`` key,
and a person reaching the same bank slug in two tenants must say which.

An agent's key (read + write) can retain and recall, but cannot accept its own suppression, dismiss an alert
pattern into a benign belief, or do either through retain; a key with the ``review`` scope (or ``admin``,
which implies it) and a signed-in reviewer can.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from banks.models import ApiKey
from banks.permissions import Role
from banks.services.api_keys import api_key_issue
from banks.services.banks import bank_access_grant, membership_set
from beliefs.models import Episode
from reviews.models import ReviewItem
from tests.factories import BankFactory, TenantFactory, UserFactory
from tests.helpers.builders import BASE, build_ops_bank, make_user

pytestmark = pytest.mark.django_db
DISMISSAL = {"type": "dismissal", "occurred_at": "2026-11-02T03:00:00Z", "signature": "DiskLatencyHigh",
             "host": "db-01", "value": 410, "reason": "backup window again"}  # fmt: skip


def key_client(bank, *scopes: str) -> tuple[APIClient, ApiKey]:
    issued = api_key_issue(tenant=bank.tenant, name="-".join(scopes), scopes=list(scopes))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.raw_key}")
    return client, issued.api_key


@pytest.fixture
def ops(db):
    return build_ops_bank()


def decide_url(item: ReviewItem, decision: str) -> str:
    return f"/api/v1/banks/ops/review-items/{item.pk}/{decision}"


def test_an_agent_write_key_cannot_decide_a_review_item(ops):
    agent, _ = key_client(ops.bank, "read", "write")
    refused = agent.post(decide_url(ops.suppression, "accept"), {"comment": "fine"}, format="json")
    assert refused.status_code == 403
    assert refused.json()["code"] == "scope_required" and refused.json()["extra"] == {"scope": "review"}
    ops.suppression.refresh_from_db()
    assert ops.suppression.status == "pending" and ops.suppression.decided_by == ""


def test_a_review_key_and_an_admin_key_decide_review_items(ops):
    reviewer, key = key_client(ops.bank, "review")
    accepted = reviewer.post(decide_url(ops.suppression, "accept"), {"comment": "checked"}, format="json")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    assert accepted.json()["decided_by"] == f"api-key:{key.prefix}"
    assert reviewer.get("/api/v1/banks/ops/review-items/").status_code == 200  # review implies read
    refused = reviewer.post("/api/v1/banks/ops/retain", {"items": [{"content": "x"}]}, format="json")
    assert refused.status_code == 403 and refused.json()["extra"] == {"scope": "write"}  # but not write
    admin, _ = key_client(ops.bank, "admin")  # admin implies review
    rejected = admin.post(decide_url(ops.lesson, "reject"), {"comment": "no"}, format="json")
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"


def test_an_agent_write_key_cannot_post_analyst_verdicts_but_still_posts_alerts(ops):
    agent, _ = key_client(ops.bank, "read", "write")
    before = Episode.objects.filter(bank=ops.bank).count()
    for kind in ("dismissal", "incident", "contest"):
        refused = agent.post("/api/v1/banks/ops/anomaly/events", {**DISMISSAL, "type": kind}, format="json")
        assert refused.status_code == 403 and refused.json()["code"] == "scope_required", kind
    # The same verdict smuggled in through retain as a typed event is refused too.
    verdict = {"content": "Analyst closed DiskLatencyHigh on db-01 as benign", "source": "analyst",
               "metadata": {"event": "dismissal", "signature": "DiskLatencyHigh", "host": "db-01"}}  # fmt: skip
    smuggled = agent.post("/api/v1/banks/ops/retain", {"items": [verdict]}, format="json")
    assert smuggled.status_code == 403 and smuggled.json()["code"] == "scope_required"
    assert Episode.objects.filter(bank=ops.bank).count() == before
    alert = agent.post("/api/v1/banks/ops/anomaly/events", {**DISMISSAL, "type": "alert"}, format="json")
    assert alert.status_code == 201
    machine_event = {"content": "disk note", "metadata": {"event": "alert", "signature": "S", "host": "h"}}
    plain = agent.post("/api/v1/banks/ops/retain", {"items": [machine_event]}, format="json")
    assert plain.status_code == 201


def test_a_review_key_and_a_signed_in_reviewer_post_analyst_verdicts_and_a_viewer_cannot(ops):
    reviewer_key, _ = key_client(ops.bank, "review")
    made = reviewer_key.post("/api/v1/banks/ops/anomaly/events", DISMISSAL, format="json")
    assert made.status_code == 201 and Episode.objects.get(pk=made.json()["episode_id"]).source == "analyst"
    person = APIClient()
    person.force_login(ops.users[Role.REVIEWER])
    assert person.post("/api/v1/banks/ops/anomaly/events", {**DISMISSAL, "type": "contest"},
                       format="json").status_code == 201  # fmt: skip
    viewer = APIClient()
    viewer.force_login(ops.users[Role.VIEWER])
    refused = viewer.post("/api/v1/banks/ops/anomaly/events", DISMISSAL, format="json")
    assert refused.status_code == 403 and "reviewer role" in refused.json()["detail"]


def test_keys_are_issued_with_the_review_scope_only_when_asked(ops):
    admin, _ = key_client(ops.bank, "admin")
    default = admin.post("/api/v1/api-keys/", {"name": "agent"}, format="json").json()
    assert default["scopes"] == ["read", "write"]
    human = admin.post("/api/v1/api-keys/", {"name": "analyst-tool", "scopes": ["review"]}, format="json").json()
    assert human["scopes"] == ["review"]
    assert ApiKey.objects.get(prefix=human["prefix"]).allows("review")
    assert not ApiKey.objects.get(prefix=default["prefix"]).allows("review")


@pytest.fixture
def twin_banks(db):
    """One person who reads bank ``ops`` in two tenants (and writes it in both)."""
    person = UserFactory()
    person.save()  # the factory's password, so the session of force_login stays valid
    banks = []
    for slug in ("acme", "globex"):
        tenant = TenantFactory(slug=slug)
        bank = BankFactory(tenant=tenant, slug="ops")
        membership_set(tenant=tenant, user=person, role="analyst")
        bank_access_grant(bank=bank, user=person, write=True)
        banks.append(bank)
    client = APIClient()
    client.force_login(person)
    return client, banks


def test_a_bank_slug_in_two_tenants_is_a_409_not_a_guess(twin_banks):
    client, (acme, globex) = twin_banks
    ambiguous = client.post("/api/v1/banks/ops/retain", {"items": [{"content": "which ops?"}]}, format="json")
    assert ambiguous.status_code == 409 and ambiguous.json()["code"] == "bank_ambiguous"
    assert ambiguous.json()["extra"] == {"tenants": ["acme", "globex"]}
    assert not Episode.objects.filter(content="which ops?").exists()
    assert client.get("/api/v1/banks/ops/episodes/").status_code == 409  # reads too: never the lower tenant id


def test_the_tenant_selector_picks_the_bank(twin_banks):
    client, (acme, globex) = twin_banks
    stored = client.post("/api/v1/banks/ops/retain?tenant=globex", {"items": [{"content": "for globex"}]},
                         format="json")  # fmt: skip
    assert stored.status_code == 201
    assert Episode.objects.get(content="for globex").bank_id == globex.pk
    by_header = client.get("/api/v1/banks/ops/", HTTP_X_MEMORYHUB_TENANT="acme")
    assert by_header.status_code == 200 and by_header.json()["tenant"] == "acme"
    assert client.get("/api/v1/banks/ops/?tenant=initech").status_code == 404  # a tenant they are not in


def test_an_api_key_ignores_no_selector_it_cannot_honour(ops):
    other = BankFactory(tenant=TenantFactory(slug="elsewhere"), slug="ops")
    agent, _ = key_client(ops.bank, "read")
    assert agent.get("/api/v1/banks/ops/").json()["tenant"] == ops.tenant.slug
    assert agent.get(f"/api/v1/banks/ops/?tenant={other.tenant.slug}").status_code == 404


def test_a_write_key_cannot_accept_its_own_suppression_after_three_dismissals(db):
    """The review's attack in full: dismissals by the agent, then the agent accepting the suppression."""
    tenant = TenantFactory()
    bank = BankFactory(tenant=tenant, slug="ops")
    agent, _ = key_client(bank, "read", "write")
    for n in range(3):
        at = (BASE + timedelta(days=7 * n)).isoformat()
        agent.post("/api/v1/banks/ops/anomaly/events", {**DISMISSAL, "type": "alert", "occurred_at": at},
                   format="json")  # fmt: skip
        dismissed = agent.post("/api/v1/banks/ops/anomaly/events", {**DISMISSAL, "occurred_at": at}, format="json")
        assert dismissed.status_code == 403
    assert not Episode.objects.filter(bank=bank, source="analyst").exists()
    make_user(f"reviewer-{tenant.pk}", tenant=tenant, bank=bank, role=Role.REVIEWER)  # a person could, later
