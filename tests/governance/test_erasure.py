"""Erasure: a subject leaves every table, beliefs lose its evidence, receipts hold no content, tombstones hold."""

import threading

import pytest
from django.db import connection

from beliefs.models import Belief, Episode, ErasureRequest, MentalModel
from beliefs.services.mental_models import mental_model_create
from beliefs.services.retain import RetainItem, retain
from tests.factories import BankFactory
from tests.governance.helpers import columns_containing
from tests.helpers.callers import make_caller
from tests.helpers.consolidation import T0, days, dismissal, remember

PLANTED = "Zorblatt7731"
SUBJECT = "customer:zora"


def plant(bank):
    """The subject's episodes: free text (a fact and a belief) and alert dismissals quoting the planted string."""
    remember(
        bank,
        [
            RetainItem(content=f"{PLANTED} works at Initech.", occurred_at=T0 + days(n), subject=SUBJECT)
            for n in range(2)
        ]
        + [
            RetainItem(
                **{**dismissal("CpuSpike", "web-1", T0 + days(n), f"{PLANTED} load test").__dict__, "subject": SUBJECT}
            )
            for n in range(2)
        ]
        + [dismissal("CpuSpike", "web-1", T0 + days(5 + n), "nightly backup") for n in range(3)]
        + [
            RetainItem(content="Bob works at Globex.", occurred_at=T0 + days(n), subject="customer:bob")
            for n in range(2)
        ],
    )


@pytest.mark.django_db(transaction=True)
def test_erasing_a_subject_leaves_no_trace_in_any_text_column(eager_tasks):
    caller = make_caller()
    plant(caller.bank)
    mental_model_create(
        bank=caller.bank, name="employers", question="who works where?", belief_filter={"predicate": "works at"}
    )
    assert PLANTED in MentalModel.objects.get(bank=caller.bank).answer
    assert columns_containing(PLANTED)  # planted: episodes, facts, evidence, beliefs, entities, terms, mental model

    response = caller.client.post(
        "/api/v1/erasure-requests/", {"subject": SUBJECT, "bank": caller.bank.slug}, format="json"
    )
    assert response.status_code == 202
    erasure = ErasureRequest.objects.get(pk=response.json()["id"])
    assert erasure.status == "done"

    connection.cursor().execute("VACUUM")  # dead tuples would still hold the bytes on disk
    assert columns_containing(PLANTED) == []
    receipt = caller.client.get(f"/api/v1/erasure-requests/{erasure.pk}").json()["receipt"]
    assert receipt["removed"]["episodes"] == 4 and receipt["removed"]["facts"] == 4
    assert receipt["rebuilt"]["mental_models"] == 1 and receipt["tombstone"] is True
    assert PLANTED.lower() not in str(receipt).lower() and SUBJECT not in str(receipt)
    assert erasure.subject == ""

    # Derived beliefs: the benign verdict lost two proofs; the planted person's belief is retracted and wordless.
    benign = Belief.objects.get(bank=caller.bank, object="benign")
    assert benign.proof_count == 3 and benign.status != "retracted"
    retracted = Belief.objects.get(bank=caller.bank, status="retracted")
    assert retracted.statement == "[erased]" and not retracted.evidence.exists()
    assert Belief.objects.get(bank=caller.bank, object_key="globex").proof_count == 2  # unrelated: untouched
    assert Episode.objects.filter(bank=caller.bank).count() == 5
    model = MentalModel.objects.get(bank=caller.bank)
    assert model.status == "answered" and "Bob works at Globex" in model.answer


@pytest.mark.django_db(transaction=True)
def test_tombstone_keeps_the_subject_out_and_repeating_is_idempotent(eager_tasks):
    caller = make_caller()
    plant(caller.bank)
    for _ in range(2):
        caller.client.post("/api/v1/erasure-requests/", {"subject": SUBJECT, "bank": caller.bank.slug}, format="json")
    second = ErasureRequest.objects.order_by("-id").first()
    assert second.status == "done" and second.receipt["removed"] == {"queued_items": 0}

    again = retain(bank=caller.bank, items=[RetainItem(content=f"{PLANTED} is back", subject=SUBJECT.upper())])
    assert [o.status for o in again.outcomes] == ["suppressed"]
    assert columns_containing(PLANTED) == []
    other = retain(bank=caller.bank, items=[RetainItem(content="new note", subject="customer:bob")])
    assert [o.status for o in other.outcomes] == ["created"]


@pytest.mark.django_db(transaction=True)
def test_unknown_subject_gives_an_empty_receipt(eager_tasks):
    caller = make_caller()
    response = caller.client.post("/api/v1/erasure-requests/", {"subject": "nobody"}, format="json")
    body = caller.client.get(f"/api/v1/erasure-requests/{response.json()['id']}").json()
    assert body["status"] == "done" and body["scope"] == "tenant"
    assert body["receipt"]["removed"] == {"queued_items": 0}


@pytest.mark.django_db(transaction=True)
def test_tenant_wide_erasure_reaches_every_bank_and_needs_a_tenant_wide_key(eager_tasks):
    caller = make_caller()
    second = BankFactory(tenant=caller.tenant)
    for bank in (caller.bank, second):
        retain(bank=bank, items=[RetainItem(content=f"{PLANTED} called support", subject=SUBJECT)])
    scoped = make_caller(bank=caller.bank, bank_scoped=True)
    refused = scoped.client.post("/api/v1/erasure-requests/", {"subject": SUBJECT}, format="json")
    assert refused.status_code == 403 and Episode.objects.filter(subject=SUBJECT).count() == 2

    intruder = make_caller()
    response = intruder.client.post(
        "/api/v1/erasure-requests/", {"subject": SUBJECT, "bank": caller.bank.slug}, format="json"
    )
    assert response.status_code == 404 and Episode.objects.filter(subject=SUBJECT).count() == 2

    done = caller.client.post("/api/v1/erasure-requests/", {"subject": SUBJECT}, format="json").json()
    assert Episode.objects.filter(subject=SUBJECT).count() == 0
    assert intruder.client.get(f"/api/v1/erasure-requests/{done['id']}").status_code == 404
    assert [r["id"] for r in intruder.client.get("/api/v1/erasure-requests/").json()["results"]] == []


@pytest.mark.django_db(transaction=True)
def test_erasure_while_retains_arrive_loses_no_unrelated_data(eager_tasks):
    caller = make_caller()
    retain(bank=caller.bank, items=[RetainItem(content=f"{PLANTED} note {n}", subject=SUBJECT) for n in range(20)])
    errors = []

    def keep_retaining():
        try:
            for n in range(10):
                retain(bank=caller.bank, items=[RetainItem(content=f"unrelated note {n}", subject="customer:bob")])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    worker = threading.Thread(target=keep_retaining)
    worker.start()
    caller.client.post("/api/v1/erasure-requests/", {"subject": SUBJECT, "bank": caller.bank.slug}, format="json")
    worker.join()
    assert errors == []
    assert Episode.objects.filter(bank=caller.bank, subject="customer:bob").count() == 10
    assert Episode.objects.filter(bank=caller.bank, subject=SUBJECT).count() == 0


@pytest.mark.django_db(transaction=True)
def test_forgetting_a_whole_bank_returns_a_receipt(eager_tasks):
    caller = make_caller()
    plant(caller.bank)
    response = caller.client.delete(caller.url(""))
    assert response.status_code == 200
    assert response.json()["removed"]["episodes"] == 9 and response.json()["removed"]["beliefs"] >= 2
    assert columns_containing(PLANTED) == []
    assert caller.client.get(caller.url("")).status_code == 404
