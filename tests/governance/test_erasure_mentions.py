"""Erasure reaches mentions: a subject's name and identifiers inside other subjects' episodes and all derived data."""

import pytest
import redis
from django.conf import settings
from django.db import connection

import beliefs.tasks  # noqa: F401 - registers the tasks that eager mode runs
from beliefs.models import Episode, ErasureRequest, MentalModel, RetainBatch
from beliefs.services.forget.mentions import MentionMatcher
from beliefs.services.mental_models import mental_model_create
from beliefs.services.retain import RetainItem, retain_async_submit
from tests.governance.helpers import columns_containing
from tests.helpers.callers import make_caller
from tests.helpers.consolidation import T0, days, remember
from workloads.distill import lessons_submit

PLANTED = "Zorblatt7731"  # the subject's account handle, named as an identifier in the request
NAME = "Zora Lemaire"
PHONE = "+1 415 555 0100"
SUBJECT = "customer:zora"


def redis_values_containing(needle: str) -> list[str]:
    """Keys of the broker's Redis database whose value (of any type) holds ``needle``."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    hits = []
    for key in client.scan_iter():
        kind = client.type(key).decode()
        if kind == "string":
            values = [client.get(key)]
        elif kind == "list":
            values = client.lrange(key, 0, -1)
        elif kind == "hash":
            values = [*client.hkeys(key), *client.hvals(key)]
        elif kind in {"set", "zset"}:
            values = list(client.smembers(key)) if kind == "set" else client.zrange(key, 0, -1)
        else:
            values = []
        if (
            any(needle.lower().encode() in (value or b"").lower() for value in values)
            or needle.lower().encode() in key.lower()
        ):
            hits.append(key.decode())
    return hits


def plant(bank):
    """Zora's own episodes, and Bob's episodes that mention her by handle, name and phone number."""
    remember(
        bank,
        [RetainItem(content=f"{NAME} asked to close her account.", occurred_at=T0, subject=SUBJECT)]
        + [
            RetainItem(
                content=f"{PLANTED} works at Initech.",
                occurred_at=T0 + days(n),
                subject="customer:bob",
                metadata={"contact": PLANTED.lower(), "notes": [f"called {NAME}"]},
            )
            for n in range(2)
        ]
        + [
            RetainItem(
                content=f"Bob escalated the refund for {NAME.upper()}; call back on 415-555-0100.",
                occurred_at=T0 + days(3),
                subject="customer:bob",
                thread=f"ticket-{PLANTED}",
            ),
        ]
        + [
            RetainItem(content="Bob works at Globex.", occurred_at=T0 + days(4 + n), subject="customer:bob")
            for n in range(2)
        ],
    )


@pytest.mark.django_db(transaction=True)
def test_mentions_in_other_subjects_memory_are_redacted_and_rederived(eager_tasks):
    caller = make_caller()
    plant(caller.bank)
    untouched = Episode.objects.filter(bank=caller.bank, content="Bob works at Globex.").first()
    mental_model_create(
        bank=caller.bank, name="employers", question="who works where?", belief_filter={"predicate": "works at"}
    )
    assert PLANTED.lower() in MentalModel.objects.get(bank=caller.bank).answer.lower()
    lessons_submit(
        bank=caller.bank, lessons=[{"text": f"Ask {PLANTED} before refunds", "evidence_episode_ids": [untouched.pk]}]
    )
    from memoryhub.celery import app

    app.conf.task_always_eager = False  # an async batch waiting for a worker also mentions the subject
    try:
        retain_async_submit(bank=caller.bank, items=[RetainItem(content=f"{PLANTED} phoned again", subject="x")])
    finally:
        app.conf.task_always_eager = True
    planted_in = set(columns_containing(PLANTED))
    assert {
        "beliefs_episode.content",
        "beliefs_episode.metadata",
        "beliefs_fact.statement",
        "beliefs_belief.statement",
        "beliefs_evidence.quote",
        "beliefs_mentalmodel.answer",
        "reviews_reviewitem.body",
        "beliefs_retainbatch.items",
        "beliefs_entity.name",
    } <= planted_in

    response = caller.client.post(
        "/api/v1/erasure-requests/",
        {"subject": SUBJECT, "bank": caller.bank.slug, "aliases": [PLANTED, NAME, PHONE]},
        format="json",
    )
    assert response.status_code == 202
    erasure = ErasureRequest.objects.get(pk=response.json()["id"])
    assert erasure.status == "done" and erasure.subject == "" and erasure.aliases == []

    connection.cursor().execute("VACUUM")  # dead tuples would still hold the bytes on disk
    for needle in (PLANTED, NAME, "555-0100", "zora"):
        assert columns_containing(needle) == [], needle
        assert redis_values_containing(needle) == [], needle

    receipt = erasure.receipt
    assert receipt["episodes_deleted"] == 1 and receipt["episodes_redacted"] == 3
    assert receipt["redacted"]["records_redacted"] >= 2  # the lesson and the queued batch at least
    assert PLANTED.lower() not in str(receipt).lower()

    bob = list(Episode.objects.filter(bank=caller.bank, subject="customer:bob").order_by("occurred_at"))
    assert len(bob) == 5  # Bob's memory stays, with the mentions erased in place
    assert bob[0].content == "[erased] works at Initech."
    assert bob[0].metadata == {"contact": "[erased]", "notes": ["called [erased]"]}
    # (Memory Defense had already redacted the phone number at retain; erasure matches it in any grouping too.)
    assert bob[2].content == "Bob escalated the refund for [erased]; call back on [REDACTED:phone_number]."
    assert bob[2].thread == "ticket-[erased]"
    assert Episode.objects.get(pk=untouched.pk).content == "Bob works at Globex."
    recalled = caller.client.post(
        caller.url("recall"), {"query": "refund escalated", "budget_tokens": 200}, format="json"
    ).json()
    assert bob[2].content in [item["text"] for item in recalled["items"]]
    model = MentalModel.objects.get(bank=caller.bank)
    assert "Bob works at Globex" in model.answer
    assert RetainBatch.objects.get(bank=caller.bank, status="pending").items[0]["content"] == "[erased] phoned again"


@pytest.mark.parametrize(
    ("terms", "text", "expected"),
    [
        (
            ["Zora Lemaire"],
            "zora-lemaire and ZORA  LEMAIRE, not Zoralemaire2",
            "[erased] and [erased], not Zoralemaire2",
        ),
        (["+1 (415) 555-0100"], "call 415.555.0100 or +14155550100", "call [erased] or +[erased]"),
        (["zora@example.com"], "mail zora@example.com now", "mail [erased] now"),
        (["acct-8812"], "account ACCT 8812 and acct-88123", "account [erased] and acct-88123"),
        (["a"], "a single letter is no term", "a single letter is no term"),
    ],
)
def test_mentions_are_matched_case_and_separator_insensitively(terms, text, expected):
    matcher = MentionMatcher.for_terms(terms)
    assert (matcher.redact_text(text) if matcher else text) == expected
