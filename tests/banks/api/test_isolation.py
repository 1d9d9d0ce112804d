"""Every bank route, checked the same way: anonymous, other tenant, same slug elsewhere, sibling bank, permitted.

The routes come from the URL resolver (``tests.helpers.routes``): a route added under
``banks/<bank_slug>/`` without a case in ``CASES`` fails ``test_every_bank_route_has_a_case``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from rest_framework.test import APIClient

from banks.services.api_keys import api_key_revoke
from banks.services.banks import bank_access_grant, membership_set
from beliefs.models import Belief, Episode, Fact, MentalModel, RetainBatch
from beliefs.services.mental_models import mental_model_create
from reviews.models import ReviewItem
from tests.factories import BankFactory, UserFactory
from tests.helpers.callers import make_caller, retain_texts
from tests.helpers.consolidation import T0, days, dismissal, remember
from tests.helpers.routes import Route, bank_api_routes, bank_page_routes
from tests.helpers.snapshot import bank_snapshot
from workloads.anomaly import triage
from workloads.churn import intervention_record, play_upsert
from workloads.distill import lessons_submit
from workloads.models import AccountLink, ChurnPlay, Intervention

SECRET = "secret plan for project nightingale"
#: Stored only in the victim's bank, never sent by a case's request (bodies name "nightingale" things, and a route
#: may echo them back for the intruder's own bank).
VICTIM_ONLY = (SECRET, "nightingale drill", "which nightingale alerts are benign?", "call nightingale accounts first")


@pytest.fixture
def victim(db):
    """Tenant A's bank: a plain episode, two dismissals that formed a belief, a mental model, a churn play with
    an intervention, a triage decision and a pending lesson."""
    caller = make_caller()
    [episode_id] = retain_texts(caller.bank, [SECRET])
    caller.episode_id = episode_id
    caller.batch_id = RetainBatch.objects.get(bank=caller.bank).pk
    remember(caller.bank, [dismissal("NightingaleAlert", "db-1", T0 + days(n), "nightingale drill") for n in range(2)])
    caller.fact_id = Fact.objects.filter(bank=caller.bank).values_list("id", flat=True).first()
    caller.belief_id = Belief.objects.get(bank=caller.bank).pk
    mental_model_create(bank=caller.bank, name="nightingale", question="which nightingale alerts are benign?")
    play_upsert(bank=caller.bank, name="nightingale-call", horizon_days=60)
    intervention, _ = intervention_record(
        bank=caller.bank, account="acct-1", segment="SMB", play="nightingale-call", occurred_at=T0
    )
    caller.intervention_id = intervention.pk
    caller.decision_id = triage(
        bank=caller.bank, signature="NightingaleAlert", host="db-1", now=T0 + days(3)
    ).decision_id
    [lesson] = lessons_submit(
        bank=caller.bank,
        lessons=[{"text": "Call nightingale accounts first", "play": "nightingale-call", "segment": "SMB",
                  "evidence_episode_ids": [episode_id]}],
    )  # fmt: skip
    caller.review_item_id = lesson.pk
    caller.episode_count = Episode.objects.filter(bank=caller.bank).count()
    return caller


def call(client, method, url, body):
    response = getattr(client, method)(url, body, format="json") if body is not None else getattr(client, method)(url)
    if getattr(response, "streaming", False):  # the export: JSON lines, read whole here
        content = b"".join(response.streaming_content)
        records = [json.loads(line) for line in content.splitlines()]
        response = SimpleNamespace(status_code=response.status_code, content=content, json=lambda: records)
    return response


@dataclass
class Case:
    """How to call one route on the victim's bank, and what a permitted caller gets back."""

    status: int
    check: Callable[[SimpleNamespace, object], bool]
    body: dict | None = None
    kwargs: Callable[[SimpleNamespace], dict] = field(default=lambda victim: {})
    query: str = ""


def _ids(body) -> list[int]:
    return [row["id"] for row in body["results"]]


CASES: dict[str, Case] = {
    "bank-detail:get": Case(200, lambda v, b: b["slug"] == v.bank.slug),
    "bank-detail:patch": Case(200, lambda v, b: b["description"] == "changed", body={"description": "changed"}),
    "bank-detail:delete": Case(
        200,
        lambda v, b: b["removed"]["episodes"] == v.episode_count and not Episode.objects.filter(bank=v.bank).exists(),
    ),
    "retain:post": Case(201, lambda v, b: b["created"] == 1, body={"items": [{"content": "new note"}]}),
    "retain-batch:get": Case(
        200,
        lambda v, b: b["batch_id"] == v.batch_id and b["status"] == "done",
        kwargs=lambda v: {"batch_id": v.batch_id},
    ),
    "recall:post": Case(
        200,
        lambda v, b: any(i["provenance"]["episode_ids"] == [v.episode_id] for i in b["items"]),
        body={"query": "nightingale", "budget_tokens": 100},
    ),
    "episode-list:get": Case(200, lambda v, b: v.episode_id in _ids(b) and b["count"] == v.episode_count),
    "episode-detail:get": Case(200, lambda v, b: b["content"] == SECRET, kwargs=lambda v: {"episode_id": v.episode_id}),
    "episode-detail:delete": Case(
        204,
        lambda v, b: not Episode.objects.filter(pk=v.episode_id).exists(),
        kwargs=lambda v: {"episode_id": v.episode_id},
    ),
    "episode-release:post": Case(
        200, lambda v, b: b["id"] == v.episode_id, kwargs=lambda v: {"episode_id": v.episode_id}
    ),
    "fact-list:get": Case(
        200, lambda v, b: b["count"] == 2 and all("NightingaleAlert" in r["subject"] for r in b["results"])
    ),
    "fact-detail:get": Case(
        200,
        lambda v, b: b["id"] == v.fact_id and "nightingale drill" in b["quote"],
        kwargs=lambda v: {"fact_id": v.fact_id},
    ),
    "belief-list:get": Case(200, lambda v, b: _ids(b) == [v.belief_id]),
    "belief-detail:get": Case(
        200, lambda v, b: b["proof_count"] == 2 and len(b["evidence"]) == 2, kwargs=lambda v: {"belief_id": v.belief_id}
    ),
    "mental-model-list:get": Case(200, lambda v, b: [r["name"] for r in b["results"]] == ["nightingale"]),
    "mental-model-list:post": Case(
        201, lambda v, b: b["name"] == "second", body={"name": "second", "question": "what is benign?"}
    ),
    "mental-model-detail:get": Case(
        200, lambda v, b: b["source_belief_ids"] == [v.belief_id], kwargs=lambda v: {"name": "nightingale"}
    ),
    "mental-model-detail:delete": Case(
        204, lambda v, b: not MentalModel.objects.filter(bank=v.bank).exists(), kwargs=lambda v: {"name": "nightingale"}
    ),
    "mental-model-refresh:post": Case(
        200, lambda v, b: b["status"] == "answered", kwargs=lambda v: {"name": "nightingale"}
    ),
    "reflect:post": Case(
        200,
        lambda v, b: b["supported"] and b["citations"][0]["belief_id"] == v.belief_id,
        body={"question": "is NightingaleAlert benign?", "budget_tokens": 300},
    ),
    "background:get": Case(200, lambda v, b: b["beliefs"] == 1 and b["facts"] == 2),
    "background:post": Case(202, lambda v, b: b["queued"] is True, body={}),
    "defense-rescans:get": Case(200, lambda v, b: b["results"] == []),
    "defense-rescans:post": Case(202, lambda v, b: b["total"] == v.episode_count),
    "audit-event-list:get": Case(
        200, lambda v, b: b["count"] == len(b["results"]) and all(r["target"] for r in b["results"])
    ),  # fmt: skip
    "review-item-list:get": Case(200, lambda v, b: _ids(b) == [v.review_item_id]),
    "review-item-detail:get": Case(
        200,
        lambda v, b: b["id"] == v.review_item_id and b["kind"] == "distillation" and b["status"] == "pending",
        kwargs=lambda v: {"item_id": v.review_item_id},
    ),
    "review-item-decide:post": Case(
        200,
        lambda v, b: b["status"] == "accepted" and ReviewItem.objects.get(pk=v.review_item_id).status == "accepted",
        body={"comment": "agreed"},
        kwargs=lambda v: {"item_id": v.review_item_id, "decision": "accept"},
    ),
    "anomaly-events:post": Case(
        201,
        lambda v, b: b["type"] == "alert" and Episode.objects.filter(pk=b["episode_id"], bank=v.bank).exists(),
        body={
            "type": "alert",
            "occurred_at": "2026-01-20T09:00:00Z",
            "signature": "NightingaleAlert",
            "host": "db-1",
            "value": 5,
        },
    ),  # fmt: skip
    "anomaly-triage:post": Case(
        200,
        lambda v, b: b["decision"] == "investigate" and b["belief"]["proof_count"] == 2,
        body={"signature": "NightingaleAlert", "host": "db-1"},
    ),
    "anomaly-decision-list:get": Case(200, lambda v, b: _ids(b) == [v.decision_id]),
    "anomaly-decision-detail:get": Case(
        200,
        lambda v, b: b["id"] == v.decision_id and b["signature"] == "NightingaleAlert",
        kwargs=lambda v: {"decision_id": v.decision_id},
    ),
    "churn-play-list:get": Case(200, lambda v, b: [p["name"] for p in b["results"]] == ["nightingale-call"]),
    "churn-play-list:post": Case(
        201,
        lambda v, b: b["name"] == "second-play" and ChurnPlay.objects.filter(bank=v.bank, name="second-play").exists(),
        body={"name": "second-play", "horizon_days": 90},
    ),
    "churn-play-detail:get": Case(
        200, lambda v, b: b["horizon_days"] == 60, kwargs=lambda v: {"name": "nightingale-call"}
    ),
    "churn-play-detail:delete": Case(
        204,
        lambda v, b: not ChurnPlay.objects.filter(bank=v.bank, name="nightingale-call").exists(),
        kwargs=lambda v: {"name": "nightingale-call"},
    ),
    "churn-interventions:get": Case(200, lambda v, b: _ids(b) == [v.intervention_id]),
    "churn-interventions:post": Case(
        201,
        lambda v, b: b["created"] is True and Intervention.objects.filter(bank=v.bank, account="acct-2").exists(),
        body={"account": "acct-2", "segment": "SMB", "play": "nightingale-call", "occurred_at": "2026-02-01T00:00:00Z"},
    ),
    "churn-intervention-detail:get": Case(
        200,
        lambda v, b: b["id"] == v.intervention_id and b["account"] == "acct-1",
        kwargs=lambda v: {"intervention_id": v.intervention_id},
    ),
    "churn-outcomes:get": Case(200, lambda v, b: b["results"] == []),
    "churn-outcomes:post": Case(
        201,
        lambda v, b: b["created"] is True and b["intervention_id"] == v.intervention_id,
        body={"account": "acct-1", "result": "retained", "occurred_at": "2026-02-10T00:00:00Z", "event_id": "ev-1"},
    ),
    "churn-links:post": Case(
        201,
        lambda v, b: AccountLink.objects.filter(pk=b["id"], bank=v.bank, related_account="acct-9").exists(),
        body={"account": "acct-1", "related_account": "acct-9", "relation": "parent"},
    ),
    "churn-score:post": Case(
        200,
        lambda v, b: b["scored"] == 1 and Intervention.objects.get(pk=v.intervention_id).outcome == "unknown",
        body={"now": "2026-06-01T00:00:00Z"},
    ),
    "churn-recommend:post": Case(
        200,
        lambda v, b: [r["play"] for r in b["recommendations"]] == ["nightingale-call"] and b["account"] == "acct-1",
        body={"account": "acct-1", "segment": "SMB"},
    ),
    "lessons:post": Case(
        400,
        lambda v, b: b["code"] == "lesson_without_evidence",
        body={"lessons": [{"text": "l", "evidence_episode_ids": [0]}]},
    ),
    "bank-export:get": Case(
        200,
        lambda v, b: (
            b[0]["type"] == "header"
            and sum(r["type"] == "episode" for r in b) == v.episode_count
            and any(r.get("content") == SECRET for r in b)
        ),
    ),
    "bank-import:post": Case(
        200,
        lambda v, b: b["created"] == {"episode": 1},
        body={"content": "imported note"},
        query="?source_format=jsonl",
    ),
}

ROUTES = bank_api_routes()
PARAMS = [pytest.param(route, id=route.key) for route in ROUTES]


def request(client, route: Route, victim, *, bank_slug: str | None = None):
    case = CASES[route.key]
    url = route.path(bank_slug=bank_slug or victim.bank.slug, **case.kwargs(victim)) + case.query
    return call(client, route.method, url, case.body)


def test_every_bank_route_has_a_case():
    routes = {route.key for route in ROUTES}
    assert len(routes) == len(ROUTES)
    assert sorted(routes - set(CASES)) == [], "bank routes without an isolation case: add them to CASES"
    assert sorted(set(CASES) - routes) == [], "cases for routes that no longer exist"


def test_every_bank_route_and_page_takes_the_bank_slug_converter():
    """One converter for a bank slug everywhere, so a malformed slug is refused the same way on every route."""
    assert len(ROUTES) >= 47 and len(bank_page_routes()) >= 27
    others = {r.pattern for r in ROUTES + bank_page_routes() if ("bank_slug", "bank_slug") not in r.converters}
    assert others == set()


@pytest.mark.parametrize("route", PARAMS)
def test_anonymous_caller_gets_401(victim, route):
    before = bank_snapshot(victim.bank)
    response = request(APIClient(), route, victim)
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert "nightingale" not in response.content.decode()
    assert bank_snapshot(victim.bank) == before


@pytest.mark.parametrize("route", PARAMS)
def test_other_tenant_cannot_reach_bank(victim, route):
    intruder = make_caller()
    before = bank_snapshot(victim.bank)
    response = request(intruder.client, route, victim)
    missing = request(intruder.client, route, victim, bank_slug="no-such-bank")
    assert response.status_code == missing.status_code == 404
    assert response.json() == missing.json() == {"code": "bank_not_found", "detail": "No such bank.", "extra": {}}
    assert bank_snapshot(victim.bank) == before


@pytest.mark.parametrize("route", PARAMS)
def test_other_tenant_with_same_bank_slug_sees_only_its_own_bank(victim, route):
    intruder = make_caller(bank=BankFactory(slug=victim.bank.slug))
    before = bank_snapshot(victim.bank)
    response = request(intruder.client, route, victim)
    assert [text for text in VICTIM_ONLY if text.lower() in response.content.decode().lower()] == []
    if response.status_code == 404:  # the slug names the intruder's own bank; only the victim's ids are unknown
        assert response.json()["code"] != "bank_not_found"
    assert bank_snapshot(victim.bank) == before


@pytest.mark.parametrize("route", PARAMS)
def test_bank_scoped_key_cannot_reach_a_sibling_bank(victim, route):
    sibling = BankFactory(tenant=victim.tenant)
    scoped = make_caller(bank=sibling, bank_scoped=True)
    before = bank_snapshot(victim.bank)
    response = request(scoped.client, route, victim)
    assert response.status_code == 404
    assert response.json() == {"code": "bank_not_found", "detail": "No such bank.", "extra": {}}
    assert bank_snapshot(victim.bank) == before


@pytest.mark.parametrize("route", PARAMS)
def test_permitted_key_reaches_the_bank(victim, route):
    case = CASES[route.key]
    response = request(victim.client, route, victim)
    assert response.status_code == case.status, response.content[:500]
    assert case.check(victim, response.json() if response.content else None), response.content[:2000]


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
        assert SECRET in [item["text"] for item in recall.json()["items"]]
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
