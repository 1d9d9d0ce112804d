"""Churn outcomes: late reports still count, each outcome counts once, attribution follows the documented rule."""

import threading

import pytest
from django.db import connection

from beliefs.models import Belief
from memoryhub.exceptions import InterventionAlreadyScored
from tests.helpers.consolidation import T0, days
from workloads.churn import (
    account_link,
    intervention_record,
    interventions_score,
    outcome_record,
    play_upsert,
    recommend,
)
from workloads.churn.recommend import family_states
from workloads.models import Intervention, OutcomeEvent

pytestmark = pytest.mark.django_db


def offer(bank, account, play, day, **extra):
    return intervention_record(
        bank=bank, account=account, segment="SMB", play=play, occurred_at=T0 + days(day), **extra
    )[0]


def report(bank, account, result, happened, reported, event_id=None, **extra):
    return outcome_record(
        bank=bank,
        account=account,
        result=result,
        occurred_at=T0 + days(happened),
        recorded_at=T0 + days(reported),
        event_id=event_id or f"{account}-{result}-{happened}-{reported}",
        **extra,
    )


def counts(bank, play, day, account="someone-else"):
    entries = recommend(bank=bank, account=account, segment="SMB", now=T0 + days(day), limit=50)
    everything = entries["recommendations"] + entries["excluded"]
    return next(((e["retained"], e["n"], e["unknown"], e["pending"]) for e in everything if e["play"] == play), None)


def test_an_outcome_reported_after_the_horizon_counts_from_the_day_it_arrived(caller):
    play_upsert(bank=caller.bank, name="training", horizon_days=60)
    for n in range(2):
        offer(caller.bank, f"acct-{n}", "training", 0)
        # Renewed on the horizon date, learned from a billing export 12 days later.
        report(caller.bank, f"acct-{n}", "retained", happened=60, reported=72)
    assert counts(caller.bank, "training", 71) == (0, 0, 0, 2)  # closed, awaiting: not known yet, no peeking
    assert counts(caller.bank, "training", 72) == (2, 2, 0, 0)
    assert interventions_score(bank=caller.bank, now=T0 + days(72), fold_now=True) == 2
    scored = Intervention.objects.get(bank=caller.bank, account="acct-0")
    assert (scored.outcome, scored.outcome_known_at) == ("retained", T0 + days(72))
    belief = Belief.objects.get(bank=caller.bank, predicate="retains")
    assert (belief.statement, belief.proof_count) == ("play training in segment SMB retains accounts", 2)


def test_an_outcome_that_happens_after_the_horizon_inside_the_grace_period_counts(caller):
    offer(caller.bank, "acme", "discount-10", 0, horizon_days=60)
    account_link(bank=caller.bank, account="acme", related_account="acme-eu", relation="subsidiary")
    recorded = report(caller.bank, "acme", "churned", happened=75, reported=80)  # cancelled 15 days after
    assert recorded.outcome.attribution == "window" and recorded.outcome.intervention is not None
    before = recommend(bank=caller.bank, account="acme-eu", segment="SMB", now=T0 + days(79), plays=["discount-10"])
    assert [r["play"] for r in before["recommendations"]] == ["discount-10"]  # the failure is not known yet
    after = recommend(bank=caller.bank, account="acme-eu", segment="SMB", now=T0 + days(80), plays=["discount-10"])
    assert after["recommendations"] == []
    [excluded] = after["excluded"]
    assert excluded["kind"] == "failed" and "linked account acme" in excluded["reason"]
    assert (excluded["retained"], excluded["n"]) == (0, 1)


def test_silence_until_the_window_closes_is_unknown_until_a_late_outcome_replaces_it(caller):
    offer(caller.bank, "acme", "exec-review", 0, horizon_days=90)
    assert interventions_score(bank=caller.bank, now=T0 + days(119)) == 0  # grace runs to day 120
    assert interventions_score(bank=caller.bank, now=T0 + days(120)) == 1
    assert Intervention.objects.get(bank=caller.bank).outcome == "unknown"
    assert counts(caller.bank, "exec-review", 121) == (0, 0, 1, 0)
    # Months later the CRM sync names the intervention: it counts from its report, never before.
    intervention = Intervention.objects.get(bank=caller.bank)
    late = report(caller.bank, None, "retained", happened=90, reported=150, intervention_id=intervention.pk)
    assert late.outcome.attribution == "named" and late.outcome.counts_from == T0 + days(150)
    assert counts(caller.bank, "exec-review", 149) == (0, 0, 1, 0)
    assert counts(caller.bank, "exec-review", 150) == (1, 1, 0, 0)
    assert interventions_score(bank=caller.bank, now=T0 + days(150)) == 1
    assert Intervention.objects.get(bank=caller.bank).outcome == "retained"
    assert interventions_score(bank=caller.bank, now=T0 + days(200)) == 0


def test_overlapping_offers_each_outcome_goes_to_exactly_one_intervention(caller):
    first = offer(caller.bank, "acme", "discount-10", 0, horizon_days=90)  # window 0 .. 120
    second = offer(caller.bank, "acme", "training", 30, horizon_days=60)  # window 30 .. 120
    early = report(caller.bank, "acme", "retained", happened=20, reported=21)  # only the first window holds day 20
    assert early.outcome.intervention_id == first.pk
    shared = report(caller.bank, "acme", "churned", happened=95, reported=100)  # both hold it: the latest offer
    assert shared.outcome.intervention_id == second.pk
    again = report(caller.bank, "acme", "churned", happened=96, reported=101, event_id="crm-copy")
    assert again.duplicate and not again.created and again.outcome.pk == shared.outcome.pk
    with pytest.raises(InterventionAlreadyScored) as conflict:
        report(caller.bank, "acme", "retained", happened=97, reported=102)
    assert conflict.value.extra["intervention_id"] == second.pk
    assert OutcomeEvent.objects.filter(bank=caller.bank).count() == 2
    totals = recommend(bank=caller.bank, account="x", segment="SMB", now=T0 + days(130), limit=10)
    sample = {e["play"]: (e["retained"], e["n"]) for e in totals["recommendations"]}
    assert sample == {"discount-10": (1, 1), "training": (0, 1)}  # two outcomes, two counts


def test_an_outcome_outside_every_window_is_kept_and_counts_nowhere(caller):
    caller.bank.policy = {"churn": {"outcome_grace_days": 10}}
    caller.bank.save()
    offer(caller.bank, "acme", "training", 0, horizon_days=60)
    stray = report(caller.bank, "acme", "churned", happened=75, reported=76)
    assert stray.created and stray.outcome.attribution == "none" and stray.outcome.intervention is None
    assert "window of the latest intervention" in stray.note
    assert counts(caller.bank, "training", 200) == (0, 0, 1, 0)


def test_an_unknown_outcome_closes_the_intervention_and_a_different_result_after_it_is_a_conflict(caller):
    intervention = offer(caller.bank, "acme", "training", 0, horizon_days=60)
    report(caller.bank, "acme", "unknown", happened=40, reported=41)  # the account was acquired: never knowable
    assert counts(caller.bank, "training", 59) == (0, 0, 0, 1)  # in flight until the horizon closes
    assert counts(caller.bank, "training", 60) == (0, 0, 1, 0)
    mine = recommend(bank=caller.bank, account="acme", segment="SMB", now=T0 + days(61))
    assert "training" in [r["play"] for r in mine["recommendations"]]  # closed, not failed: may be offered again
    with pytest.raises(InterventionAlreadyScored):
        report(caller.bank, None, "retained", happened=60, reported=70, intervention_id=intervention.pk)


def test_the_outcome_api_names_interventions_and_refuses_bad_references(caller, other_caller):
    url = caller.url("churn/outcomes")
    body = {"account": "a", "segment": "SMB", "play": "training", "occurred_at": T0.isoformat(), "horizon_days": 60}
    made = caller.client.post(caller.url("churn/interventions"), body, format="json").json()
    # Its state is given at the wall clock: this January offer's window closed long ago with nothing reported.
    assert (made["horizon_days"], made["horizon_source"], made["state"]) == (60, "intervention", "unknown")
    assert made["horizon_closes_at"] == "2026-03-06T09:00:00Z" and made["window_closes_at"] == "2026-04-05T09:00:00Z"
    foreign = intervention_record(bank=other_caller.bank, account="a", segment="SMB", play="training", occurred_at=T0)[
        0
    ]
    cases = [
        ({"intervention_id": foreign.pk}, 404, "intervention_not_found"),  # another tenant's id is not found
        ({"intervention_id": made["id"], "account": "b"}, 400, "outcome_account_mismatch"),
        (
            {"intervention_id": made["id"], "occurred_at": (T0 - days(1)).isoformat()},
            400,
            "outcome_before_intervention",
        ),
        ({"account": "ghost"}, 404, "intervention_not_found"),
        ({}, 400, "validation_error"),
        ({"account": "a", "result": "maybe"}, 400, "validation_error"),
    ]
    for extra, status, code in cases:
        event = {"result": "retained", "occurred_at": (T0 + days(60)).isoformat(), "event_id": "e1"} | extra
        response = caller.client.post(url, event, format="json")
        assert (response.status_code, response.json()["code"]) == (status, code), extra
    assert not OutcomeEvent.objects.filter(bank=caller.bank).exists()
    event = {
        "intervention_id": made["id"],
        "result": "retained",
        "occurred_at": (T0 + days(60)).isoformat(),
        "recorded_at": (T0 + days(70)).isoformat(),
        "event_id": "e1",
    }
    created = caller.client.post(url, event, format="json")
    assert created.status_code == 201
    assert created.json() | {"id": 0, "created_at": None} == {
        "id": 0,
        "event_id": "e1",
        "account": "a",
        "result": "retained",
        "occurred_at": "2026-03-06T09:00:00Z",
        "recorded_at": "2026-03-16T09:00:00Z",
        "intervention_id": made["id"],
        "attribution": "named",
        "counts_from": "2026-03-16T09:00:00Z",
        "created_at": None,
        "created": True,
        "duplicate": False,
        "note": "",
    }
    replay = caller.client.post(url, event, format="json")
    assert replay.status_code == 200 and replay.json()["created"] is False
    conflict = caller.client.post(url, event | {"event_id": "e2", "result": "churned"}, format="json")
    assert conflict.status_code == 409 and conflict.json()["code"] == "intervention_already_scored"
    listed = caller.client.get(url, {"account": "a"}).json()
    assert [o["event_id"] for o in listed["results"]] == ["e1"]
    detail = caller.client.get(caller.url(f"churn/interventions/{made['id']}"), {"now": "2026-03-10T00:00:00Z"}).json()
    assert (detail["state"], detail["outcome"]) == ("awaiting_outcome", None)  # reported later than `now`: unseen
    known = caller.client.get(caller.url("churn/interventions"), {"now": "2026-03-17T00:00:00Z"}).json()["results"]
    assert [(i["state"], i["known_at"], i["outcome"]["event_id"]) for i in known] == [
        ("retained", "2026-03-16T09:00:00Z", "e1")
    ]


@pytest.mark.django_db(transaction=True)
def test_concurrent_reports_for_one_intervention_store_one_outcome():
    from tests.helpers.callers import make_caller

    caller = make_caller()
    intervention = offer(caller.bank, "acme", "training", 0, horizon_days=60)
    barrier = threading.Barrier(4)
    results: list[str] = []

    def send(n: int) -> None:
        barrier.wait()
        try:
            recorded = outcome_record(
                bank=caller.bank,
                intervention_id=intervention.pk,
                result="retained" if n % 2 else "churned",
                occurred_at=T0 + days(60),
                recorded_at=T0 + days(61),
                event_id=f"e{n}",
            )
            results.append("stored" if recorded.created else "duplicate")
        except InterventionAlreadyScored:
            results.append("conflict")
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count("stored") == 1 and len(results) == 4
    assert OutcomeEvent.objects.filter(intervention=intervention).count() == 1


@pytest.mark.parametrize(
    ("occurred", "reported", "named", "goes_to", "counts_from"),
    [
        ("2026-01-20", "2026-01-21", None, "discount-10", "2026-03-02"),
        ("2026-03-02", "2026-03-20", None, "training", "2026-05-02"),
        ("2026-03-02", "2026-03-20", "discount-10", "discount-10", "2026-03-20"),
        ("2026-06-20", "2026-06-21", None, None, None),
    ],
)
def test_the_timeline_in_the_readme(caller, occurred, reported, named, goes_to, counts_from):
    from datetime import UTC, datetime

    def at(day):
        return datetime.fromisoformat(day).replace(tzinfo=UTC)

    offers = {
        "discount-10": intervention_record(
            bank=caller.bank,
            account="acme",
            segment="SMB",
            play="discount-10",
            occurred_at=at("2026-01-01"),
            horizon_days=60,
        )[0],
        "training": intervention_record(
            bank=caller.bank,
            account="acme",
            segment="SMB",
            play="training",
            occurred_at=at("2026-02-01"),
            horizon_days=90,
        )[0],
    }
    recorded = outcome_record(
        bank=caller.bank,
        account="acme",
        result="retained",
        occurred_at=at(occurred),
        recorded_at=at(reported),
        event_id="e",
        intervention_id=offers[named].pk if named else None,
    )
    expected = offers[goes_to].pk if goes_to else None
    assert recorded.outcome.intervention_id == expected
    assert recorded.outcome.counts_from == (at(counts_from) if counts_from else None)
    if goes_to is None:  # and the last row: nothing for training by Jun 1 is unknown from then
        states = {i.play: s.state for i, s in family_states(bank=caller.bank, accounts={"acme"}, now=at("2026-06-01"))}
        assert states["training"] == "unknown"
