"""Bad input gets a JSON error with a stable code, and stored data does not change."""

import pytest
from django.test import override_settings

from beliefs.models import Episode
from tests.helpers.callers import retain_texts


@pytest.fixture
def stocked(caller):
    retain_texts(caller.bank, ["existing memory one", "existing memory two"])
    return caller


def snapshot(bank):
    return sorted(Episode.objects.filter(bank=bank).values_list("id", "content"))


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"items": []}, "items"),
        ({}, "items"),
        ({"items": [{"content": ""}]}, "items"),
        ({"items": [{"content": "   \n"}]}, "items"),
        ({"items": [{"content": "x" * 20001}]}, "items"),
        ({"items": [{"content": "ok", "occurred_at": "yesterday-ish"}]}, "items"),
        ({"items": [{"content": "ok", "occurred_at": "2026-02-30T00:00:00Z"}]}, "items"),
        ({"items": [{"content": "ok", "metadata": "not an object"}]}, "items"),
        ({"items": [{"content": "ok", "metadata": {"blob": "y" * 20000}}]}, "items"),
        ({"items": [{"content": "nul \x00 byte"}]}, "items"),
        ({"items": [{"content": "ok", "provenance": "oracle"}]}, "items"),
        ({"items": [{"content": "ok", "source": "has spaces!"}]}, "items"),
        ({"items": [{"content": "ok", "colour": "blue"}]}, "items"),
        ({"items": "not a list"}, "items"),
        ({"items": [{"content": "ok"}], "unexpected": 1}, "unexpected"),
        ({"items": [{"content": f"item {n}"} for n in range(1001)]}, "items"),
    ],
    ids=[
        "empty-batch",
        "no-items",
        "empty-content",
        "blank-content",
        "oversized-content",
        "bad-date",
        "impossible-date",
        "metadata-not-object",
        "oversized-metadata",
        "nul-byte",
        "unknown-provenance",
        "bad-source",
        "unknown-item-field",
        "items-not-list",
        "unknown-top-field",
        "batch-over-limit",
    ],
)
def test_bad_retain_is_rejected_and_changes_nothing(stocked, payload, field):
    before = snapshot(stocked.bank)
    response = stocked.client.post(stocked.url("retain"), payload, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "validation_error"
    assert field in body["extra"]["fields"]
    assert body["detail"]
    assert snapshot(stocked.bank) == before


def test_one_bad_item_rejects_the_whole_batch(stocked):
    before = snapshot(stocked.bank)
    payload = {"items": [{"content": "good one"}, {"content": ""}, {"content": "good two"}]}
    response = stocked.client.post(stocked.url("retain"), payload, format="json")
    assert response.status_code == 400
    assert "items[1]" in response.json()["detail"] or "1" in response.json()["extra"]["fields"]["items"]
    assert snapshot(stocked.bank) == before


def test_malformed_json_is_a_400_with_code(stocked):
    response = stocked.client.post(stocked.url("retain"), data='{"items": [', content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "malformed_request"


def test_wrong_content_type_is_415(stocked):
    response = stocked.client.post(stocked.url("retain"), data="items=1", content_type="text/plain")
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


def test_oversized_body_is_413(stocked):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000):
        response = stocked.client.post(stocked.url("retain"), {"items": [{"content": "z" * 5000}]}, format="json")
    assert response.status_code == 413
    assert response.json()["code"] == "payload_too_large"
    assert len(snapshot(stocked.bank)) == 2


def test_unknown_bank_is_404(caller):
    response = caller.client.post("/api/v1/banks/no-such-bank/retain", {"items": [{"content": "x"}]}, format="json")
    assert response.status_code == 404
    assert response.json()["code"] == "bank_not_found"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"query": "x", "budget_tokens": 0}, "budget_tokens"),
        ({"query": "x", "budget_tokens": -5}, "budget_tokens"),
        ({"query": "x", "budget_tokens": 65537}, "budget_tokens"),
        ({"query": "x", "budget_tokens": "lots"}, "budget_tokens"),
        ({"query": "x"}, "budget_tokens"),
        ({"query": "", "budget_tokens": 10}, "query"),
        ({"query": "   ", "budget_tokens": 10}, "query"),
        ({"query": "q" * 4001, "budget_tokens": 10}, "query"),
        ({"budget_tokens": 10}, "query"),
        ({"query": "x", "budget_tokens": 10, "filters": {"colour": "red"}}, "filters"),
        ({"query": "x", "budget_tokens": 10, "filters": {"occurred_after": "soon"}}, "filters"),
        (
            {
                "query": "x",
                "budget_tokens": 10,
                "filters": {"occurred_after": "2026-05-01T00:00:00Z", "occurred_before": "2026-04-01T00:00:00Z"},
            },
            "filters",
        ),
        ({"query": "x", "budget_tokens": 10, "as_of": "not a date"}, "as_of"),
        ({"query": "x", "budget_tokens": 10, "channels": ["telepathy"]}, "channels"),
        ({"query": "x", "budget_tokens": 10, "top_k": 5}, "top_k"),
    ],
)
def test_bad_recall_is_rejected_with_field_error(stocked, payload, field):
    response = stocked.client.post(stocked.url("recall"), payload, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "validation_error"
    assert field in response.json()["extra"]["fields"]


def test_episode_list_with_bad_date_filter_is_400(stocked):
    response = stocked.client.get(stocked.url("episodes/"), {"occurred_after": "last tuesday"})
    assert response.status_code == 400
    assert response.json()["code"] == "validation_error"
    assert "occurred_after" in response.json()["extra"]["fields"]


def test_unknown_route_under_api_is_json_404(caller):
    response = caller.client.get(caller.url("episodes/not-a-number"))
    assert response.status_code == 404


def test_method_not_allowed_has_code(stocked):
    response = stocked.client.get(stocked.url("recall"))
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
