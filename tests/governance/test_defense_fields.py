"""Memory Defense scans every free-text field a caller writes, not only retain's content (review L5).

Each test sends what the review names — a secret in a metadata key, a thread, a source, a
lesson, a review comment, a churn play description, a mental-model question, a bank's
description and background — and reads back what was stored.
"""

from __future__ import annotations

import pytest

from banks.models import Bank
from beliefs.models import Episode, MentalModel, Play
from reviews.models import ReviewItem
from tests.helpers.callers import make_caller, retain_texts
from workloads.models import ChurnPlay

pytestmark = pytest.mark.django_db

SECRET = "AKIA4HKQ7ZT2PLMW3XNB"  # the shape of an AWS access key id
REDACTED = "[REDACTED:aws_access_key_id]"


@pytest.fixture
def caller():
    return make_caller()


def _block(caller) -> None:
    caller.bank.policy = {"defense": {"mode": "block"}}
    caller.bank.save()


def _retain(caller, item: dict):
    return caller.client.post(caller.url("retain"), {"items": [{"content": "deploy notes", **item}]}, format="json")


def test_a_metadata_key_is_redacted(caller):
    response = _retain(caller, {"metadata": {SECRET: 1, "note": "fine"}})
    assert response.status_code == 201 and response.json()["redacted"] == {"aws_access_key_id": 1}
    episode = Episode.objects.get(bank=caller.bank)
    assert episode.metadata == {REDACTED: 1, "note": "fine"}
    shown = caller.client.get(caller.url(f"episodes/{episode.pk}")).json()
    assert SECRET not in str(shown) and shown["metadata"] == {REDACTED: 1, "note": "fine"}


def test_nested_keys_that_redact_alike_keep_both_values(caller):
    other = "AKIA9QWERTYUZXCVBNM2"
    _retain(caller, {"metadata": {"keys": {SECRET: "a", other: "b"}}})
    stored = Episode.objects.get(bank=caller.bank).metadata["keys"]
    assert sorted(stored.values()) == ["a", "b"] and SECRET not in str(stored) and other not in str(stored)


def test_thread_and_source_are_scanned(caller):
    assert _retain(caller, {"thread": f"incident {SECRET}", "source": SECRET}).status_code == 201
    episode = Episode.objects.get(bank=caller.bank)
    assert episode.thread == f"incident {REDACTED}" and episode.source == "redacted"


def test_block_mode_refuses_a_secret_in_a_metadata_key_and_stores_nothing(caller):
    _block(caller)
    response = _retain(caller, {"metadata": {SECRET: 1}})
    assert response.status_code == 422
    assert response.json()["code"] == "memory_defense_blocked"
    assert response.json()["extra"]["items"] == [{"item": 0, "kinds": ["aws_access_key_id"]}]
    assert not Episode.objects.filter(bank=caller.bank).exists()


def test_a_lesson_is_redacted_in_its_review_item_and_in_the_play_it_becomes(caller):
    [episode_id] = retain_texts(caller.bank, ["Customer acme churned after the price change."])
    lesson = {"text": f"Rotate {SECRET} before offering the discount.", "evidence_episode_ids": [episode_id]}
    response = caller.client.post(caller.url("lessons"), {"session": SECRET, "lessons": [lesson]}, format="json")
    assert response.status_code == 201, response.content
    item = ReviewItem.objects.get(bank=caller.bank)
    assert SECRET not in f"{item.title} {item.body} {item.payload}" and REDACTED in item.body
    accepted = caller.client.post(caller.url(f"review-items/{item.pk}/accept"), {}, format="json")
    assert accepted.status_code == 200
    play = Play.objects.get(bank=caller.bank)
    assert play.text == f"Rotate {REDACTED} before offering the discount."


def test_a_review_comment_is_redacted(caller):
    [episode_id] = retain_texts(caller.bank, ["Customer acme churned after the price change."])
    lesson = {"text": "Offer the discount earlier.", "evidence_episode_ids": [episode_id]}
    caller.client.post(caller.url("lessons"), {"lessons": [lesson]}, format="json")
    item = ReviewItem.objects.get(bank=caller.bank)
    response = caller.client.post(
        caller.url(f"review-items/{item.pk}/reject"), {"comment": f"leaked key {SECRET}"}, format="json"
    )
    assert response.status_code == 200 and response.json()["comment"] == f"leaked key {REDACTED}"
    item.refresh_from_db()
    assert item.comment == f"leaked key {REDACTED}"


def test_a_churn_play_description_is_redacted(caller):
    response = caller.client.post(
        caller.url("churn/plays/"),
        {"name": "discount-20", "horizon_days": 60, "description": f"use key {SECRET}"},
        format="json",
    )
    assert response.status_code == 201 and response.json()["description"] == f"use key {REDACTED}"
    assert ChurnPlay.objects.get(bank=caller.bank).description == f"use key {REDACTED}"


def test_a_mental_model_question_is_redacted_and_blocked_in_block_mode(caller):
    question = f"which alerts mention {SECRET}?"
    response = caller.client.post(caller.url("mental-models/"), {"name": "keys", "question": question}, format="json")
    assert response.status_code == 201, response.content
    assert MentalModel.objects.get(bank=caller.bank).question == f"which alerts mention {REDACTED}?"

    _block(caller)
    refused = caller.client.post(caller.url("mental-models/"), {"name": "keys2", "question": question}, format="json")
    assert refused.status_code == 422
    assert refused.json()["extra"] == {"kinds": ["aws_access_key_id"], "fields": ["question"]}
    assert not MentalModel.objects.filter(bank=caller.bank, name="keys2").exists()


def test_a_bank_description_and_background_are_redacted_on_create_and_update(caller):
    created = caller.client.post(
        "/api/v1/banks/",
        {"slug": "ops-2", "description": f"key {SECRET}", "background": f"ops notes {SECRET}"},
        format="json",
    )
    assert created.status_code == 201, created.content
    bank = Bank.objects.get(tenant=caller.tenant, slug="ops-2")
    assert (bank.description, bank.background) == (f"key {REDACTED}", f"ops notes {REDACTED}")

    patched = caller.client.patch(caller.url(), {"background": f"standing context {SECRET}"}, format="json")
    assert patched.status_code == 200
    caller.bank.refresh_from_db()
    assert caller.bank.background == f"standing context {REDACTED}"

    # A change that switches Memory Defense off in the same request is judged by the new policy.
    off = caller.client.patch(
        caller.url(), {"policy": {"defense": {"mode": "off"}}, "description": f"kept {SECRET}"}, format="json"
    )
    assert off.status_code == 200
    caller.bank.refresh_from_db()
    assert caller.bank.description == f"kept {SECRET}"


def test_a_bank_in_block_mode_refuses_a_secret_in_its_background(caller):
    _block(caller)
    response = caller.client.patch(caller.url(), {"background": f"context {SECRET}"}, format="json")
    assert response.status_code == 422 and response.json()["extra"]["fields"] == ["bank"]
    caller.bank.refresh_from_db()
    assert caller.bank.background == ""
