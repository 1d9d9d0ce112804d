"""Churn recommend: excluded plays keep their counts and say why; per-play horizons from the catalogue."""

import pytest

from tests.helpers.consolidation import T0, days
from workloads.churn import (
    account_link,
    intervention_record,
    outcome_record,
    play_upsert,
    recommend,
    wilson,
)
from workloads.models import Intervention

pytestmark = pytest.mark.django_db


def offer(bank, account, play, day, result=None, segment="SMB", horizon=60):
    intervention = intervention_record(
        bank=bank, account=account, segment=segment, play=play, occurred_at=T0 + days(day), horizon_days=horizon
    )[0]
    if result:
        outcome_record(
            bank=bank,
            account=account,
            result=result,
            occurred_at=T0 + days(day + horizon),
            recorded_at=T0 + days(day + horizon + 5),
            event_id=f"{account}-{play}-{day}",
        )
    return intervention


def segment_history(bank):
    """discount-10: 2 of 5 retained; training: 4 of 5 retained; all known by day 70."""
    for n in range(5):
        offer(bank, f"d{n}", "discount-10", 0, "retained" if n < 2 else "churned")
        offer(bank, f"t{n}", "training", 0, "retained" if n < 4 else "churned")


def test_an_excluded_play_keeps_its_counts_interval_and_why(caller):
    segment_history(caller.bank)
    offer(caller.bank, "acme", "discount-10", 10, "churned")  # 2 of 6 now
    offer(caller.bank, "acme", "exec-review", 100)  # in flight at day 120
    account_link(bank=caller.bank, account="acme", related_account="acme-eu", relation="subsidiary")
    result = recommend(bank=caller.bank, account="acme-eu", segment="SMB", now=T0 + days(120))
    assert result["linked_accounts"] == ["acme"] and result["counts_known_at"] == T0 + days(120)
    [excluded] = result["excluded"]  # exec-review is in flight on acme, not on this account
    assert (excluded["play"], excluded["kind"]) == ("discount-10", "failed")
    assert (excluded["retained"], excluded["churned"], excluded["n"]) == (2, 4, 6)
    assert excluded["interval"] == list(wilson(2, 6)) and excluded["rate"] == round(2 / 6, 4)
    assert excluded["summary"] == "discount-10 in SMB: 2 of 6 retained, outcomes known at 2026-05-05T09:00+00:00"
    assert excluded["why"].startswith("Excluded: it failed for linked account acme (offered 2026-01-15, churned")
    assert "2 of 6 retained" in excluded["why"]
    assert [b["account"] for b in excluded["blocked_by"]] == ["acme"]
    top = result["recommendations"][0]
    assert (top["play"], top["retained"], top["n"], top["rank"]) == ("training", 4, 5, 1)
    # Segment: 6 of 11 retained; training (4 of 5) is estimated at (4 + 4 x 6/11) / (5 + 4) = 69%.
    assert (result["segment_rate"], result["segment_n"], top["estimate"]) == (round(6 / 11, 4), 11, 0.6869)
    assert top["why"].startswith("Ranked 1 of 2 by estimated retention 69%: 4 of 5 retained in SMB, outcomes known at")
    assert top["why"].endswith("Not tried on this account or a linked account.")
    second = result["recommendations"][1]
    assert second["play"] == "exec-review" and second["n"] == 0 and second["pending"] == 1
    assert second["estimate"] == round(6 / 11, 4) and "no outcome known in SMB" in second["why"]
    assert "Tried on linked account acme" in second["why"]


def test_an_untried_play_is_proposed_before_one_known_to_do_worse_than_the_segment(caller):
    segment_history(caller.bank)  # discount-10 2 of 5, training 4 of 5: the segment retains 6 of 10
    ranked = recommend(bank=caller.bank, account="new", segment="SMB", now=T0 + days(70), plays=["success-plan"])
    assert [r["play"] for r in ranked["recommendations"]] == ["training", "success-plan", "discount-10"]
    # One lucky offer does not outrank a long record.
    offer(caller.bank, "lucky", "success-plan", 0, "retained")
    ranked = recommend(bank=caller.bank, account="new", segment="SMB", now=T0 + days(70))
    assert [(r["play"], r["retained"], r["n"]) for r in ranked["recommendations"]][:2] == [
        ("training", 4, 5),
        ("success-plan", 1, 1),
    ]


def test_plays_offered_to_this_account_wait_for_their_outcome(caller):
    segment_history(caller.bank)
    offer(caller.bank, "acme", "training", 100)  # horizon closes day 160, grace to day 190
    in_flight = recommend(bank=caller.bank, account="acme", segment="SMB", now=T0 + days(150))
    [entry] = in_flight["excluded"]
    assert (entry["kind"], entry["retained"], entry["n"], entry["pending"]) == ("in_flight", 4, 5, 1)
    assert "60-day horizon closes 2026-06-14" in entry["reason"]
    awaiting = recommend(bank=caller.bank, account="acme", segment="SMB", now=T0 + days(170))
    assert awaiting["excluded"][0]["kind"] == "awaiting_outcome"
    assert "awaited until 2026-07-14" in awaiting["excluded"][0]["reason"]
    free = recommend(bank=caller.bank, account="acme", segment="SMB", now=T0 + days(191))
    assert free["excluded"] == [] and free["recommendations"][0]["unknown"] == 1


def test_recommend_reads_a_bounded_number_of_queries(caller, django_assert_max_num_queries):
    segment_history(caller.bank)
    for n in range(10):
        offer(caller.bank, "acme", f"play-{n}", n * 3, "churned" if n % 2 else None)
    with django_assert_max_num_queries(12):
        result = recommend(bank=caller.bank, account="acme", segment="SMB", now=T0 + days(200), limit=50)
    assert len(result["excluded"]) == 5 and len(result["recommendations"]) == 7


def test_horizons_come_from_the_intervention_the_catalogue_or_the_bank(caller):
    url = caller.url("churn/plays/")
    assert caller.client.post(url, {"name": "discount-10", "horizon_days": 60}, format="json").status_code == 201
    assert caller.client.post(url, {"name": "exec-review", "horizon_days": 90}, format="json").status_code == 201
    for bad in (29, 181, "soon"):
        response = caller.client.post(url, {"name": "x", "horizon_days": bad}, format="json")
        assert response.status_code == 400 and "horizon_days" in response.json()["extra"]["fields"]
    changed = caller.client.post(url, {"name": "exec-review", "horizon_days": 120, "description": "QBR"}, format="json")
    assert changed.status_code == 200 and changed.json()["horizon_days"] == 120
    assert [p["name"] for p in caller.client.get(url).json()["results"]] == ["discount-10", "exec-review"]
    body = {"account": "a", "segment": "SMB", "occurred_at": T0.isoformat()}
    post = caller.url("churn/interventions")
    made = {
        "catalogue": caller.client.post(post, body | {"play": "discount-10"}, format="json").json(),
        "override": caller.client.post(post, body | {"play": "exec-review", "horizon_days": 45}, format="json").json(),
        "bank": caller.client.post(post, body | {"play": "training"}, format="json").json(),
    }
    assert {k: (v["horizon_days"], v["horizon_source"]) for k, v in made.items()} == {
        "catalogue": (60, "play"),
        "override": (45, "intervention"),
        "bank": (75, "bank"),
    }
    too_long = caller.client.post(post, body | {"play": "p", "horizon_days": 200}, format="json")
    assert too_long.status_code == 400
    caller.bank.policy = {"churn": {"horizon_days": 180}}
    caller.bank.save()
    later = caller.client.post(post, body | {"play": "success-plan"}, format="json").json()
    assert later["horizon_days"] == 180
    assert caller.client.delete(caller.url("churn/plays/discount-10")).status_code == 204
    assert caller.client.get(caller.url("churn/plays/discount-10")).json()["code"] == "play_not_found"
    # Removing a play from the catalogue leaves recorded offers as they were.
    assert Intervention.objects.get(bank=caller.bank, play="discount-10").horizon_days == 60


def test_a_catalogue_play_with_no_history_is_proposed_and_shows_its_horizon(caller):
    play_upsert(bank=caller.bank, name="success-plan", horizon_days=90)
    result = recommend(bank=caller.bank, account="new", segment="Enterprise", now=T0)
    [entry] = result["recommendations"]
    assert (entry["play"], entry["horizon_days"], entry["n"], entry["interval"]) == ("success-plan", 90, 0, [0.0, 1.0])
