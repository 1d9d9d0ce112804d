"""Churn plays judged on delayed outcomes, repeat-play avoidance, gated distillation and review decisions."""

import pytest

from beliefs.models import Belief, Play
from reviews.models import ReviewItem
from tests.helpers.consolidation import T0, days
from workloads.churn import account_link, intervention_record, interventions_score, outcome_record, recommend
from workloads.models import Intervention

pytestmark = pytest.mark.django_db


def offer(bank, account, play, day, result=None, segment="SMB"):
    intervention_record(bank=bank, account=account, segment=segment, play=play, occurred_at=T0 + days(day))
    if result:
        outcome_record(
            bank=bank,
            account=account,
            result=result,
            occurred_at=T0 + days(day + 30),
            recorded_at=T0 + days(day + 30),
            event_id=f"{account}-{play}-{day}",
        )


def test_outcomes_are_scored_only_when_the_horizon_closes_and_build_a_belief_with_sample_sizes(caller):
    for n in range(5):
        offer(caller.bank, f"acct-{n}", "discount-10", 0, "retained" if n < 3 else "churned")
    assert interventions_score(bank=caller.bank, now=T0 + days(74), fold_now=True) == 0  # horizon 75 days
    assert interventions_score(bank=caller.bank, now=T0 + days(75), fold_now=True) == 5
    assert interventions_score(bank=caller.bank, now=T0 + days(80), fold_now=True) == 0  # idempotent
    belief = Belief.objects.get(bank=caller.bank, predicate="retains")
    assert belief.statement == "play discount-10 in segment SMB retains accounts"
    assert (belief.proof_count, belief.contradiction_count) == (3, 2)
    result = recommend(bank=caller.bank, account="new", segment="SMB", now=T0 + days(80))
    top = result["recommendations"][0]
    assert (top["play"], top["retained"], top["n"]) == ("discount-10", 3, 5)
    assert top["summary"] == "discount-10 in SMB: 3 of 5 retained, outcomes known at 2026-03-26T09:00+00:00"
    assert top["belief_id"] == belief.pk
    assert top["interval"][0] < 0.6 < top["interval"][1]
    early = recommend(bank=caller.bank, account="new", segment="SMB", now=T0 + days(70))
    assert early["recommendations"][0]["n"] == 0  # outcomes not known yet: no peeking


def test_a_failed_play_is_never_proposed_again_for_the_account_or_its_relatives(caller):
    offer(caller.bank, "acme", "discount-10", 0, "churned")
    offer(caller.bank, "acme", "exec-review", 1)
    offer(caller.bank, "other", "training", 0, "retained")
    account_link(bank=caller.bank, account="acme", related_account="acme-eu", relation="subsidiary")
    interventions_score(bank=caller.bank, now=T0 + days(75))
    mine = recommend(bank=caller.bank, account="acme", segment="SMB", now=T0 + days(75.5))
    assert [r["play"] for r in mine["recommendations"]] == ["training"]
    reasons = {e["play"]: e["reason"] for e in mine["excluded"]}
    assert reasons["discount-10"].startswith("it failed for this account (offered 2026-01-05, churned")
    assert reasons["exec-review"] == "offered to this account on 2026-01-06; its 75-day horizon closes 2026-03-22"
    sibling = recommend(bank=caller.bank, account="acme-eu", segment="SMB", now=T0 + days(76))
    assert "discount-10" not in [r["play"] for r in sibling["recommendations"]]
    assert "linked account acme" in {e["play"]: e["reason"] for e in sibling["excluded"]}["discount-10"]


def test_bad_churn_input(caller):
    url = caller.url("churn/outcomes")
    unknown = caller.client.post(
        url,
        {"account": "ghost", "result": "churned", "occurred_at": "2026-01-01T00:00:00Z", "event_id": "e1"},
        format="json",
    )
    assert unknown.status_code == 404 and unknown.json()["code"] == "intervention_not_found"
    body = {"account": "a", "segment": "SMB", "play": "p", "occurred_at": "2026-01-01T00:00:00Z"}
    assert caller.client.post(caller.url("churn/interventions"), body, format="json").status_code == 201
    assert caller.client.post(caller.url("churn/interventions"), body, format="json").json()["created"] is False
    event = {"account": "a", "result": "churned", "occurred_at": "2026-01-05T00:00:00Z", "event_id": "e1"}
    assert caller.client.post(url, event, format="json").status_code == 201
    assert caller.client.post(url, event, format="json").json()["created"] is False  # duplicate event: no-op
    assert Intervention.objects.filter(bank=caller.bank).count() == 1


def test_lessons_wait_for_review_and_only_accepted_ones_become_plays(caller):
    missing = caller.client.post(
        caller.url("lessons"), {"lessons": [{"text": "Always call before discounting"}]}, format="json"
    )
    assert missing.status_code == 400 and missing.json()["code"] == "lesson_without_evidence"
    body = {
        "session": "s-1",
        "lessons": [
            {"text": "Exec reviews save mid-market accounts", "play": "exec-review", "segment": "Mid-Market"},
            {"text": "Discounts do not save SMB accounts", "play": "discount-10", "segment": "SMB"},
        ],
    }
    items = caller.client.post(caller.url("lessons"), body, format="json").json()["review_items"]
    assert [i["status"] for i in items] == ["pending", "pending"] and not Play.objects.exists()
    accepted = caller.client.post(
        caller.url(f"review-items/{items[0]['id']}/accept"), {"comment": "agreed"}, format="json"
    )
    assert accepted.json()["status"] == "accepted"
    assert Play.objects.get(bank=caller.bank).text == "Exec reviews save mid-market accounts"
    no_reason = caller.client.post(caller.url(f"review-items/{items[1]['id']}/reject"), {}, format="json")
    assert no_reason.status_code == 400
    rejected = caller.client.post(
        caller.url(f"review-items/{items[1]['id']}/reject"), {"comment": "too few outcomes"}, format="json"
    )
    assert rejected.json()["status"] == "rejected" and rejected.json()["comment"] == "too few outcomes"
    conflict = caller.client.post(caller.url(f"review-items/{items[1]['id']}/accept"), {}, format="json")
    assert conflict.status_code == 409
    assert Play.objects.filter(bank=caller.bank).count() == 1
    listed = caller.client.get(caller.url("review-items/"), {"status": "rejected"}).json()["results"]
    assert [i["id"] for i in listed] == [items[1]["id"]]
    guidance = recommend(bank=caller.bank, account="x", segment="Mid-Market", now=T0)["guidance"]
    assert [g["text"] for g in guidance] == ["Exec reviews save mid-market accounts"]
    actions = set(caller.client.get(caller.url("audit-events/")).json()["results"][i]["action"] for i in range(3))
    assert {"review.accept", "review.reject"} <= actions


def test_auto_accept_needs_enough_scored_outcomes(caller):
    caller.bank.policy = {"distillation": {"auto_accept_min_outcomes": 3}}
    caller.bank.save()
    for n in range(3):
        offer(caller.bank, f"a{n}", "training", 0, "retained")
    lesson = {"text": "Training keeps SMB", "play": "training", "segment": "SMB"}
    caller.client.post(caller.url("lessons"), {"lessons": [lesson]}, format="json")
    assert ReviewItem.objects.get(bank=caller.bank).status == "pending"  # outcomes not scored yet
    interventions_score(bank=caller.bank, now=T0 + days(75))
    caller.client.post(caller.url("lessons"), {"lessons": [lesson]}, format="json")
    item = ReviewItem.objects.filter(bank=caller.bank).order_by("-id").first()
    assert item.status == "accepted" and item.decided_by.startswith("auto-accept (3 scored outcomes)")


def test_accepted_lessons_are_recalled_as_plays_and_rejected_ones_are_not(caller):
    body = {
        "lessons": [
            {
                "text": "Offer a training session before any discount to SMB accounts",
                "play": "training",
                "segment": "SMB",
            },
            {"text": "Offer a steep discount to every SMB account", "play": "discount-20", "segment": "SMB"},
        ]
    }
    first, second = caller.client.post(caller.url("lessons"), body, format="json").json()["review_items"]
    query = {"query": "what should we offer an SMB account before a discount?", "budget_tokens": 300}
    assert not [
        i for i in caller.client.post(caller.url("recall"), query, format="json").json()["items"] if i["kind"] == "play"
    ]
    caller.client.post(caller.url(f"review-items/{first['id']}/accept"), {}, format="json")
    caller.client.post(
        caller.url(f"review-items/{second['id']}/reject"), {"comment": "no evidence it works"}, format="json"
    )
    plays = [
        i for i in caller.client.post(caller.url("recall"), query, format="json").json()["items"] if i["kind"] == "play"
    ]
    assert [p["text"] for p in plays] == [
        "[accepted lesson] Offer a training session before any discount to SMB accounts"
    ]


@pytest.mark.django_db(transaction=True)
def test_the_scheduled_task_scores_closed_horizons_in_every_bank(eager_tasks):
    from datetime import UTC, datetime

    from tests.helpers.callers import make_caller
    from workloads.tasks import score_interventions_task

    a, b = make_caller(), make_caller()
    old = datetime(2025, 1, 1, tzinfo=UTC)  # horizons long closed by the wall clock
    for caller in (a, b):
        intervention_record(bank=caller.bank, account="x", segment="SMB", play="training", occurred_at=old)
    outcome_record(
        bank=a.bank, account="x", result="retained", occurred_at=datetime(2025, 1, 20, tzinfo=UTC), event_id="e"
    )
    assert score_interventions_task.apply().result == {"scored": 2, "banks": 2}
    assert Intervention.objects.get(bank=a.bank).outcome == "retained"
    assert Intervention.objects.get(bank=b.bank).outcome == "unknown"
