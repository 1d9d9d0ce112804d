"""Every bank route, checked the same way: anonymous, other tenant, other bank, permitted."""

import json
from types import SimpleNamespace

import pytest
from rest_framework.test import APIClient

from banks.services.api_keys import api_key_revoke
from banks.services.banks import bank_access_grant, membership_set
from beliefs.models import Belief, Episode, Fact, MentalModel, RetainBatch
from beliefs.services.mental_models import mental_model_create
from tests.beliefs.consolidation_helpers import T0, days, dismissal, remember
from tests.conftest import make_caller, retain_texts
from tests.factories import BankFactory, UserFactory
from workloads.churn import play_upsert


@pytest.fixture
def victim(db):
    """Tenant A's bank: one plain episode, two dismissals that formed a belief, and a mental model."""
    caller = make_caller()
    [episode_id] = retain_texts(caller.bank, ["secret plan for project nightingale"])
    caller.episode_id = episode_id
    caller.batch_id = RetainBatch.objects.get(bank=caller.bank).pk
    remember(caller.bank, [dismissal("NightingaleAlert", "db-1", T0 + days(n), "nightingale drill") for n in range(2)])
    caller.episode_count = 3
    caller.fact_id = Fact.objects.filter(bank=caller.bank).values_list("id", flat=True).first()
    caller.belief_id = Belief.objects.get(bank=caller.bank).pk
    mental_model_create(bank=caller.bank, name="nightingale", question="which nightingale alerts are benign?")
    play_upsert(bank=caller.bank, name="nightingale-call", horizon_days=60)
    return caller


def routes(victim):
    """(method, url, body, expected success status) for every route under a bank."""
    return [
        ("get", victim.url(""), None, 200),
        ("get", victim.url("episodes/"), None, 200),
        ("get", victim.url(f"episodes/{victim.episode_id}"), None, 200),
        ("get", victim.url(f"retain-batches/{victim.batch_id}"), None, 200),
        ("post", victim.url("recall"), {"query": "nightingale", "budget_tokens": 100}, 200),
        ("post", victim.url("retain"), {"items": [{"content": "new note"}]}, 201),
        ("delete", victim.url(f"episodes/{victim.episode_id}"), None, 204),
        ("get", victim.url("facts/"), None, 200),
        ("get", victim.url(f"facts/{victim.fact_id}"), None, 200),
        ("get", victim.url("beliefs/"), None, 200),
        ("get", victim.url(f"beliefs/{victim.belief_id}"), None, 200),
        ("get", victim.url("mental-models/"), None, 200),
        ("get", victim.url("mental-models/nightingale"), None, 200),
        ("post", victim.url("mental-models/"), {"name": "second", "question": "what is benign?"}, 201),
        ("post", victim.url("mental-models/nightingale/refresh"), None, 200),
        ("delete", victim.url("mental-models/nightingale"), None, 204),
        ("post", victim.url("reflect"), {"question": "is NightingaleAlert benign?", "budget_tokens": 300}, 200),
        ("get", victim.url("background"), None, 200),
        ("post", victim.url("background"), {}, 202),
        ("patch", victim.url(""), {"description": "changed"}, 200),
        ("get", victim.url("audit-events/"), None, 200),
        ("get", victim.url("defense-rescans/"), None, 200),
        ("post", victim.url("defense-rescans/"), None, 202),
        ("post", victim.url(f"episodes/{victim.episode_id}/release"), None, 200),
        ("delete", victim.url(""), None, 200),
        ("post", victim.url("anomaly/triage"), {"signature": "NightingaleAlert", "host": "db-1"}, 200),
        ("post", victim.url("churn/recommend"), {"account": "acct-1", "segment": "SMB"}, 200),
        ("get", victim.url("anomaly/decisions/"), None, 200),
        ("get", victim.url("churn/plays/"), None, 200),
        ("get", victim.url("churn/plays/nightingale-call"), None, 200),
        ("get", victim.url("churn/interventions"), None, 200),
        ("get", victim.url("churn/outcomes"), None, 200),
        ("get", victim.url("review-items/"), None, 200),
        ("post", victim.url("lessons"), {"lessons": [{"text": "l", "evidence_episode_ids": [0]}]}, 400),
        ("get", victim.url("export"), None, 200),
        ("post", victim.url("import?source_format=jsonl"), {"content": "imported note"}, 200),
    ]


def call(client, method, url, body):
    response = getattr(client, method)(url, body, format="json") if body is not None else getattr(client, method)(url)
    if getattr(response, "streaming", False):  # the export: JSON lines, read whole here
        content = b"".join(response.streaming_content)
        records = [json.loads(line) for line in content.splitlines()]
        response = SimpleNamespace(status_code=response.status_code, content=content, json=lambda: records)
    return response


ROUTE_IDS = [
    "bank",
    "episodes",
    "episode",
    "batch",
    "recall",
    "retain",
    "delete",
    "facts",
    "fact",
    "beliefs",
    "belief",
    "mental-models",
    "mental-model",
    "mental-model-create",
    "mental-model-refresh",
    "mental-model-delete",
    "reflect",
    "background",
    "background-run",
    "bank-update",
    "audit-events",
    "defense-rescans",
    "defense-rescan-start",
    "episode-release",
    "bank-delete",
    "triage",
    "recommend",
    "anomaly-decisions",
    "churn-plays",
    "churn-play",
    "churn-interventions",
    "churn-outcomes",
    "review-items",
    "lessons",
    "export",
    "import",
]


@pytest.mark.parametrize("index", range(len(ROUTE_IDS)), ids=ROUTE_IDS)
def test_anonymous_caller_gets_401(victim, index):
    method, url, body, _ = routes(victim)[index]
    response = call(APIClient(), method, url, body)
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert "nightingale" not in response.content.decode()


@pytest.mark.parametrize("index", range(len(ROUTE_IDS)), ids=ROUTE_IDS)
def test_other_tenant_cannot_reach_bank(victim, index):
    intruder = make_caller()
    method, url, body, _ = routes(victim)[index]
    response = call(intruder.client, method, url, body)
    assert response.status_code == 404
    assert response.json() == {"code": "bank_not_found", "detail": "No such bank.", "extra": {}}
    assert Episode.objects.filter(bank=victim.bank).count() == victim.episode_count


@pytest.mark.parametrize("index", range(len(ROUTE_IDS)), ids=ROUTE_IDS)
def test_other_tenant_with_same_bank_slug_sees_only_its_own_bank(victim, index):
    intruder = make_caller(bank=BankFactory(slug=victim.bank.slug))
    method, url, body, _ = routes(victim)[index]
    response = call(intruder.client, method, url, body)
    assert "nightingale" not in response.content.decode()
    assert Episode.objects.filter(bank=victim.bank).count() == victim.episode_count


@pytest.mark.parametrize("index", range(len(ROUTE_IDS)), ids=ROUTE_IDS)
def test_bank_scoped_key_cannot_reach_a_sibling_bank(victim, index):
    sibling = BankFactory(tenant=victim.tenant)
    scoped = make_caller(bank=sibling, bank_scoped=True)
    method, url, body, _ = routes(victim)[index]
    response = call(scoped.client, method, url, body)
    assert response.status_code == 404
    assert response.json()["code"] == "bank_not_found"


PERMITTED_CHECKS = {
    "bank": lambda victim, body: body["slug"] == victim.bank.slug,
    "episodes": lambda victim, body: (
        victim.episode_id in [row["id"] for row in body["results"]] and body["count"] == victim.episode_count
    ),
    "episode": lambda victim, body: body["content"] == "secret plan for project nightingale",
    "batch": lambda victim, body: body["batch_id"] == victim.batch_id and body["status"] == "done",
    "recall": lambda victim, body: any(i["provenance"]["episode_ids"] == [victim.episode_id] for i in body["items"]),
    "retain": lambda victim, body: body["created"] == 1,
    "delete": lambda victim, body: not Episode.objects.filter(pk=victim.episode_id).exists(),
    "facts": lambda victim, body: (
        body["count"] == 2 and all("NightingaleAlert" in r["subject"] for r in body["results"])
    ),
    "fact": lambda victim, body: body["id"] == victim.fact_id and "nightingale drill" in body["quote"],
    "beliefs": lambda victim, body: [r["id"] for r in body["results"]] == [victim.belief_id],
    "belief": lambda victim, body: body["proof_count"] == 2 and len(body["evidence"]) == 2,
    "mental-models": lambda victim, body: [r["name"] for r in body["results"]] == ["nightingale"],
    "mental-model": lambda victim, body: body["source_belief_ids"] == [victim.belief_id],
    "mental-model-create": lambda victim, body: body["name"] == "second",
    "mental-model-refresh": lambda victim, body: body["status"] == "answered",
    "mental-model-delete": lambda victim, body: not MentalModel.objects.filter(bank=victim.bank).exists(),
    "reflect": lambda victim, body: body["supported"] and body["citations"][0]["belief_id"] == victim.belief_id,
    "background": lambda victim, body: body["beliefs"] == 1 and body["facts"] == 2,
    "background-run": lambda victim, body: body["queued"] is True,
    "bank-update": lambda victim, body: body["description"] == "changed",
    "audit-events": lambda victim, body: body["count"] == 0,  # the fixture wrote through services, not the API
    "defense-rescans": lambda victim, body: body["results"] == [],
    "defense-rescan-start": lambda victim, body: body["total"] == victim.episode_count,
    "episode-release": lambda victim, body: body["id"] == victim.episode_id,
    "bank-delete": lambda victim, body: (
        body["removed"]["episodes"] == victim.episode_count
        and not Episode.objects.filter(pk=victim.episode_id).exists()
    ),
    "triage": lambda victim, body: body["decision"] == "investigate" and body["belief"]["proof_count"] == 2,
    "recommend": lambda victim, body: (
        [r["play"] for r in body["recommendations"]] == ["nightingale-call"] and body["account"] == "acct-1"
    ),
    "anomaly-decisions": lambda victim, body: body["results"] == [],
    "churn-plays": lambda victim, body: [p["name"] for p in body["results"]] == ["nightingale-call"],
    "churn-play": lambda victim, body: body["horizon_days"] == 60,
    "churn-interventions": lambda victim, body: body["results"] == [],
    "churn-outcomes": lambda victim, body: body["results"] == [],
    "review-items": lambda victim, body: body["results"] == [],
    "lessons": lambda victim, body: body["code"] == "lesson_without_evidence",
    "export": lambda victim, body: (
        body[0]["type"] == "header"
        and sum(r["type"] == "episode" for r in body) == victim.episode_count
        and any(r.get("content") == "secret plan for project nightingale" for r in body)
    ),
    "import": lambda victim, body: body["created"] == {"episode": 1},
}


@pytest.mark.parametrize("index", range(len(ROUTE_IDS)), ids=ROUTE_IDS)
def test_permitted_key_reaches_the_bank(victim, index):
    method, url, body, expected = routes(victim)[index]
    response = call(victim.client, method, url, body)
    assert response.status_code == expected
    assert PERMITTED_CHECKS[ROUTE_IDS[index]](victim, response.json() if response.content else None)


def test_recall_returns_only_the_callers_bank(victim):
    intruder = make_caller(bank=BankFactory(slug=victim.bank.slug))
    retain_texts(intruder.bank, ["public notes about birds"])
    body = intruder.client.post(
        intruder.url("recall"), {"query": "nightingale plan", "budget_tokens": 1000}, format="json"
    ).json()
    assert [item["text"] for item in body["items"]] == ["public notes about birds"]


def test_episode_id_of_another_bank_is_not_found_in_own_bank(victim):
    intruder = make_caller()
    response = intruder.client.get(intruder.url(f"episodes/{victim.episode_id}"))
    assert response.status_code == 404 and response.json()["code"] == "episode_not_found"
    response = intruder.client.delete(intruder.url(f"episodes/{victim.episode_id}"))
    assert response.status_code == 404
    assert Episode.objects.filter(pk=victim.episode_id).exists()


def test_bank_list_shows_only_reachable_banks(victim):
    BankFactory(tenant=victim.tenant, slug="second")
    intruder = make_caller()
    assert [b["slug"] for b in intruder.client.get("/api/v1/banks/").json()["results"]] == [intruder.bank.slug]
    assert sorted(b["slug"] for b in victim.client.get("/api/v1/banks/").json()["results"]) == sorted(
        [victim.bank.slug, "second"]
    )
    scoped = make_caller(bank=victim.bank, bank_scoped=True)
    assert [b["slug"] for b in scoped.client.get("/api/v1/banks/").json()["results"]] == [victim.bank.slug]


def test_revoked_key_is_refused(victim):
    api_key_revoke(api_key=victim.api_key)
    response = victim.client.get(victim.url(""))
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_garbage_bearer_token_is_refused(victim):
    client = APIClient()
    for token in ["nonsense", "mh_deadbeef_wrong", f"{victim.raw_key}x"]:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        assert client.get(victim.url("")).status_code == 401


class TestSessionUsers:
    def login(self, user):
        client = APIClient()
        client.force_authenticate(user=user)
        return client

    def test_member_without_grant_gets_404(self, victim):
        user = UserFactory()
        membership_set(tenant=victim.tenant, user=user, role="viewer")
        response = self.login(user).get(victim.url(""))
        assert response.status_code == 404

    def test_viewer_with_read_grant_can_recall_but_not_retain(self, victim):
        user = UserFactory()
        membership_set(tenant=victim.tenant, user=user, role="viewer")
        bank_access_grant(bank=victim.bank, user=user)
        client = self.login(user)
        recall = client.post(victim.url("recall"), {"query": "nightingale", "budget_tokens": 100}, format="json")
        assert "secret plan for project nightingale" in [item["text"] for item in recall.json()["items"]]
        response = client.post(victim.url("retain"), {"items": [{"content": "x"}]}, format="json")
        assert response.status_code == 403 and response.json()["code"] == "permission_denied"
        assert Episode.objects.filter(bank=victim.bank).count() == victim.episode_count

    def test_grant_in_another_tenant_does_not_open_this_one(self, victim):
        user = UserFactory()
        other = make_caller()
        membership_set(tenant=other.tenant, user=user, role="admin")
        bank_access_grant(bank=victim.bank, user=user, write=True)  # a stray grant without membership
        response = self.login(user).get(victim.url(""))
        assert response.status_code == 404

    def test_tenant_admin_reaches_every_bank_of_the_tenant(self, victim):
        user = UserFactory()
        membership_set(tenant=victim.tenant, user=user, role="admin")
        client = self.login(user)
        assert client.get(victim.url("episodes/")).json()["count"] == victim.episode_count
        created = client.post("/api/v1/banks/", {"slug": "made-by-admin"}, format="json")
        assert created.status_code == 201 and created.json()["tenant"] == victim.tenant.slug
