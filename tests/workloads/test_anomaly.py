"""Anomaly triage: cautious, cited suppression; review and overturn; decay and drift."""

import pytest

from beliefs.models import Belief
from reviews.models import ReviewItem
from tests.helpers.consolidation import T0, days
from workloads.anomaly import anomaly_event_record, triage
from workloads.models import TriageDecision

pytestmark = pytest.mark.django_db


def feed(bank, kind, n, start=0, value=95.0, host="db-3", signature="DiskIOHigh", **extra):
    for i in range(n):
        at = T0 + days(start + i)
        anomaly_event_record(
            bank=bank,
            event={"type": "alert", "signature": signature, "host": host, "value": value},
            occurred_at=at,
            fold_now=True,
        )
        if kind:
            anomaly_event_record(
                bank=bank,
                event={"type": kind, "signature": signature, "host": host, "value": value, "reason": "backup", **extra},
                occurred_at=at + days(0.01),
                fold_now=True,
            )


def test_suppresses_only_at_the_threshold_and_cites_the_belief(caller):
    feed(caller.bank, "dismissal", 2)
    early = triage(bank=caller.bank, signature="DiskIOHigh", target="db-3", value=95, now=T0 + days(2.5))
    assert early.decision == "investigate"
    assert "proof count 2 is below the threshold 3" in early.reasons
    feed(caller.bank, "dismissal", 1, start=3)
    result = triage(bank=caller.bank, signature="DiskIOHigh", target="db-3", value=95, now=T0 + days(4))
    assert result.decision == "suppress" and result.reasons == []
    assert result.belief["proof_count"] == 3 and result.belief["statement"] == "alert DiskIOHigh on db-3 is benign"
    assert len(result.citations) == 3 and all(c["quote"] == "backup" for c in result.citations)
    review = ReviewItem.objects.get(pk=result.review_item_id)
    assert review.kind == "suppression" and review.status == "pending" and review.triage_id == result.decision_id


def test_a_per_bank_threshold_is_respected(caller):
    caller.bank.policy = {"anomaly": {"suppress_threshold": 5}}
    caller.bank.save()
    feed(caller.bank, "dismissal", 4)
    assert (
        triage(bank=caller.bank, signature="DiskIOHigh", target="db-3", value=95, now=T0 + days(5)).decision
        == "investigate"
    )


def test_other_hosts_higher_values_and_stale_beliefs_are_investigated(caller):
    feed(caller.bank, "dismissal", 4)
    now = T0 + days(5)
    assert triage(bank=caller.bank, signature="DiskIOHigh", target="db-4", value=95, now=now).decision == "investigate"
    high = triage(bank=caller.bank, signature="DiskIOHigh", target="db-3", value=400, now=now)
    assert high.decision == "investigate" and "above the range" in high.reasons[0]
    stale = triage(bank=caller.bank, signature="DiskIOHigh", target="db-3", value=95, now=T0 + days(3 + 91))
    assert stale.decision == "investigate" and "the belief is stale at this time" in stale.reasons


def test_no_peeking_at_later_events(caller):
    feed(caller.bank, "dismissal", 4)  # days 0..3
    back_then = triage(bank=caller.bank, signature="DiskIOHigh", target="db-3", value=95, now=T0 + days(1.5))
    assert back_then.decision == "investigate" and back_then.belief["proof_count"] == 2


def test_overturn_contests_the_belief_and_the_next_alert_is_investigated(caller):
    feed(caller.bank, "dismissal", 4)
    suppressed = triage(bank=caller.bank, signature="DiskIOHigh", target="db-3", value=95, now=T0 + days(5))
    assert suppressed.decision == "suppress"
    url = caller.url(f"review-items/{suppressed.review_item_id}/overturn")
    no_reason = caller.client.post(url, {"comment": "  "}, format="json")
    assert no_reason.status_code == 400 and no_reason.json()["code"] == "review_decision_invalid"
    response = caller.client.post(url, {"comment": "this one was a real disk failure"}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "overturned"
    again = caller.client.post(url, {"comment": "twice"}, format="json")
    assert again.status_code == 200 and again.json()["comment"] == "this one was a real disk failure"  # no-op
    after = triage(bank=caller.bank, signature="DiskIOHigh", target="db-3", value=95, now=T0 + days(6))
    assert after.decision == "investigate" and "the belief is contested at this time" in after.reasons
    assert after.context and after.tokens_used <= after.budget_tokens
    belief = Belief.objects.get(pk=suppressed.belief["id"])
    assert belief.status == "contested" and belief.confidence < suppressed.belief["confidence"]
    last = belief.versions.order_by("-version").first()
    assert (last.cause, last.old_status, last.new_status) == ("reviewed", "active", "contested")
    assert after.contradictions[0]["quote"] == "this one was a real disk failure"
    # Fresh dismissals outweigh the overturn (weight 3) only once support is more than three times as strong,
    # and not within anomaly.contest_days (30) of it.
    feed(caller.bank, "dismissal", 5, start=7)  # 9 proofs: 3 >= 9 / 3, still contested
    still = triage(bank=caller.bank, signature="DiskIOHigh", target="db-3", value=95, now=T0 + days(12))
    assert still.decision == "investigate" and still.belief["proof_count"] == 9
    feed(caller.bank, "dismissal", 1, start=12)  # 10 proofs: no longer contested, but the overturn is 8 days old
    quiet = triage(bank=caller.bank, signature="DiskIOHigh", target="db-3", value=95, now=T0 + days(13))
    assert quiet.decision == "investigate" and quiet.belief["status"] == "active"
    assert [r for r in quiet.reasons if r.startswith("contradicted on") and "no suppression until" in r]
    back = triage(bank=caller.bank, signature="DiskIOHigh", target="db-3", value=95, now=T0 + days(36))
    assert back.decision == "suppress", back.reasons


def test_investigation_bundle_has_runbook_steps_and_prior_alerts_within_budget(caller):
    feed(caller.bank, "incident", 2, signature="CpuSpike", host="web-1")
    for n in range(3):
        anomaly_event_record(
            bank=caller.bank,
            event={"type": "runbook", "signature": "CpuSpike", "step": "top", "produced_signal": True},
            occurred_at=T0 + days(n),
            fold_now=True,
        )
    result = triage(
        bank=caller.bank, signature="CpuSpike", target="web-1", value=90, now=T0 + days(4), budget_tokens=120
    )
    assert result.decision == "investigate"
    assert result.runbook_steps == [{"step": "runbook step top for alert CpuSpike", "times_with_signal": 3}]
    assert result.context and result.tokens_used <= 120
    assert TriageDecision.objects.filter(bank=caller.bank).count() == 1


def test_bad_anomaly_input_is_refused(caller):
    url = caller.url("anomaly/events")
    missing = caller.client.post(
        url, {"type": "alert", "occurred_at": "2026-01-01T00:00:00Z", "host": "h"}, format="json"
    )
    assert missing.status_code == 400 and missing.json()["code"] == "validation_error"
    no_host = caller.client.post(
        url, {"type": "alert", "signature": "S", "occurred_at": "2026-01-01T00:00:00Z"}, format="json"
    )
    assert no_host.status_code == 400
    ok = caller.client.post(
        url,
        {"type": "alert", "signature": "S", "host": "h", "value": 3, "occurred_at": "2026-01-01T00:00:00Z"},
        format="json",
    )
    assert ok.status_code == 201
    triaged = caller.client.post(
        caller.url("anomaly/triage"), {"signature": "S", "host": "h", "now": "2026-01-02T00:00:00Z"}, format="json"
    ).json()
    assert triaged["decision"] == "investigate" and triaged["reasons"] == ["no belief that this alert is benign"]
    assert caller.client.post(caller.url("review-items/999/explode"), {}, format="json").status_code == 400
