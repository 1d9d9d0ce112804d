"""Anomaly: quotes are the analyst's own words, contested beliefs never suppress, decisions record the belief then."""

import pytest
from django.db import IntegrityError, transaction

from beliefs.models import Belief, Episode, Evidence
from beliefs.services.consolidate import consolidate
from beliefs.services.extract import bank_extract
from reviews.services.decisions import review_item_decide
from tests.helpers.consolidation import T0, days
from workloads.anomaly import anomaly_event_record, triage
from workloads.models import TriageDecision

pytestmark = pytest.mark.django_db

REASONS = [
    "nightly backup job saturates the disk",
    "  vacuum full on the orders table:",  # leading spaces and a trailing colon the template must not eat
    "Known: the 02:00 ETL (ticket OPS-1182) — expected.",
    "same as last week; Zürich replica catching up",
]


def event(caller, body):
    response = caller.client.post(caller.url("anomaly/events"), body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["episode_id"]


def alert_and_dismiss(caller, n, reason, *, host="db-3", service=None, value=90.0, start=0):
    """n alerts, each dismissed by an analyst with ``reason``; returns {episode_id: the text the analyst wrote}."""
    written = {}
    for i in range(n):
        at = T0 + days(start + i)
        where = {"host": host} | ({"service": service} if service else {})
        alert = {"type": "alert", "signature": "DiskIOHigh", "value": value, "occurred_at": at.isoformat()}
        event(caller, alert | where)
        body = {"type": "dismissal", "signature": "DiskIOHigh", "value": value, "reason": reason}
        episode_id = event(caller, body | where | {"occurred_at": (at + days(0.01)).isoformat()})
        written[episode_id] = reason
    fold(caller, T0 + days(start + n))
    return written


def fold(caller, now):
    bank_extract(bank=caller.bank)
    consolidate(bank=caller.bank, now=now)


def assert_exact(citation, written):
    analyst_text = written[citation["episode_id"]]
    episode = Episode.objects.get(pk=citation["episode_id"])
    assert citation["quote"] and citation["quote"] in analyst_text
    assert episode.content[citation["quote_start"] : citation["quote_end"]] == citation["quote"]
    assert citation["quote"] != episode.content  # not the line the service wrote around it
    start, end = citation["source_span"]
    assert analyst_text.strip()[start:end] == citation["quote"] and citation["source_field"] in {"reason", "comment"}


def test_every_citation_is_an_exact_substring_of_what_the_analyst_wrote(caller):
    written = {}
    for n, reason in enumerate(REASONS):
        written |= alert_and_dismiss(caller, 1, reason, start=n)
    response = caller.client.post(
        caller.url("anomaly/triage"),
        {"signature": "DiskIOHigh", "host": "db-3", "value": 90, "now": (T0 + days(5)).isoformat()},
        format="json",
    ).json()
    assert response["decision"] == "suppress" and len(response["citations"]) == 3
    for cited in response["citations"]:
        assert_exact(cited, written)
    assert {c["quote"] for c in response["citations"]} <= {r.strip() for r in REASONS}
    # The belief's stored evidence is cut the same way, and the decision row keeps the same citations.
    belief = Belief.objects.get(pk=response["belief"]["id"])
    for evidence in Evidence.objects.filter(belief=belief):
        assert evidence.quote in written[evidence.episode_id]
    assert TriageDecision.objects.get(pk=response["decision_id"]).citations == response["citations"]


def test_an_analyst_event_without_a_reason_is_refused(caller):
    body = {"type": "dismissal", "signature": "S", "host": "h", "occurred_at": T0.isoformat()}
    response = caller.client.post(caller.url("anomaly/events"), body, format="json")
    assert response.status_code == 400 and "reason" in str(response.json()["extra"])
    assert not Episode.objects.filter(bank=caller.bank).exists()


def test_accepting_a_suppression_with_a_comment_stores_the_comment_as_evidence(caller):
    written = alert_and_dismiss(caller, 3, "backup window")
    first = triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", value=90, now=T0 + days(4))
    assert first.decision == "suppress" and first.belief["proof_count"] == 3
    comment = "Looked at it: the 04:00 snapshot, harmless."
    review_item_decide(bank=caller.bank, item_id=first.review_item_id, decision="accept", comment=comment, actor="ana")
    second = triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", value=90, now=T0 + days(5))
    assert second.belief["proof_count"] == 4
    newest = second.citations[0]
    assert newest["quote"] == comment and newest["source_field"] == "reason"
    assert_exact(newest, written | {newest["episode_id"]: comment})
    # Accepting without a comment confirms the review but adds no proof: every proof quotes an analyst.
    review_item_decide(bank=caller.bank, item_id=second.review_item_id, decision="accept", actor="ana")
    third = triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", value=90, now=T0 + days(6))
    assert third.belief["proof_count"] == 4


def test_a_contested_belief_never_suppresses(caller):
    alert_and_dismiss(caller, 6, "backup")
    assert triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", value=90, now=T0 + days(7)).decision == (
        "suppress"
    )
    contest = {
        "type": "contest",
        "signature": "DiskIOHigh",
        "host": "db-3",
        "reason": "disk 2 is failing; these are not backups any more",
        "occurred_at": (T0 + days(7.5)).isoformat(),
    }
    event(caller, contest)
    fold(caller, T0 + days(7.5))
    result = triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", value=90, now=T0 + days(8))
    assert result.decision == "investigate" and result.belief["status"] == "contested"
    assert result.contradictions[0]["quote"] == "disk 2 is failing; these are not backups any more"
    record = TriageDecision.objects.get(pk=result.decision_id)
    assert (record.belief_status, record.proof_count) == ("contested", 6)
    # The database refuses a suppression resting on anything but an active belief.
    with pytest.raises(IntegrityError), transaction.atomic():
        TriageDecision.objects.create(
            tenant=caller.tenant,
            bank=caller.bank,
            signature="DiskIOHigh",
            target="db-3",
            decided_at=T0 + days(8),
            decision="suppress",
            belief=record.belief,
            belief_status="contested",
        )


def test_a_decision_records_the_belief_as_it_stood_then(caller):
    alert_and_dismiss(caller, 3, "backup")
    early = triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", value=90, now=T0 + days(1.5))
    late = triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", value=90, now=T0 + days(4))
    alert_and_dismiss(caller, 2, "backup", start=5)
    rows = {r.pk: r for r in TriageDecision.objects.filter(bank=caller.bank)}
    assert (rows[early.decision_id].decision, rows[early.decision_id].proof_count) == ("investigate", 2)
    assert (rows[late.decision_id].belief_status, rows[late.decision_id].proof_count) == ("active", 3)
    log = caller.client.get(caller.url("anomaly/decisions/"), {"decision": "suppress"}).json()
    assert [(r["id"], r["belief_status"], r["proof_count"]) for r in log["results"]] == [
        (late.decision_id, "active", 3)
    ]
    detail = caller.client.get(caller.url(f"anomaly/decisions/{early.decision_id}")).json()
    assert detail["reasons"] == ["proof count 2 is below the threshold 3"]
    assert caller.client.get(caller.url("anomaly/decisions/999999")).json()["code"] == "triage_decision_not_found"


@pytest.mark.parametrize(
    ("key", "other_service_suppressed", "other_host_suppressed"),
    [("both", False, False), ("host", True, False), ("service", False, True)],
)
def test_the_bank_chooses_what_a_pattern_is_keyed_on(caller, key, other_service_suppressed, other_host_suppressed):
    caller.bank.policy = {"anomaly": {"key": key}}
    caller.bank.save()
    alert_and_dismiss(caller, 3, "backup", host="db-3", service="postgres")
    now = T0 + days(4)
    same = triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", service="postgres", value=90, now=now)
    other_service = triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", service="kafka", value=90, now=now)
    other_host = triage(bank=caller.bank, signature="DiskIOHigh", host="db-7", service="postgres", value=90, now=now)
    assert same.decision == "suppress"
    assert (other_service.decision == "suppress") is other_service_suppressed
    assert (other_host.decision == "suppress") is other_host_suppressed
    assert same.pattern["key"] == key
    assert same.pattern["target"] == {"both": "db-3/postgres", "host": "db-3", "service": "postgres"}[key]


def test_a_confirmed_incident_blocks_suppression_for_the_contest_period(caller):
    alert_and_dismiss(caller, 6, "backup")
    anomaly_event_record(
        bank=caller.bank,
        event={"type": "incident", "signature": "DiskIOHigh", "host": "db-3", "value": 90, "reason": "real outage"},
        occurred_at=T0 + days(6.5),
        fold_now=True,
    )
    alert_and_dismiss(caller, 2, "backup", start=7)  # the belief is restored: the latest word is benign again
    soon = triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", value=90, now=T0 + days(10))
    assert soon.decision == "investigate" and soon.belief["status"] == "active"
    assert soon.contradictions[0]["quote"] == "real outage"
    later = triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", value=90, now=T0 + days(37))
    assert later.decision == "suppress", later.reasons
    caller.bank.policy = {"anomaly": {"contest_days": 0}}
    caller.bank.save()
    assert triage(bank=caller.bank, signature="DiskIOHigh", host="db-3", value=90, now=T0 + days(10)).decision == (
        "suppress"
    )
