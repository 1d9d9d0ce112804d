import pytest

from beliefs.models import Episode, RetainBatch
from beliefs.services.retain import retain_batch_process


def post_retain(caller, items, **extra):
    return caller.client.post(caller.url("retain"), {"items": items}, format="json", **extra)


def test_retain_stores_episodes_with_embedding_and_search_vector(caller):
    response = post_retain(
        caller,
        [
            {
                "content": "Alert DiskLatencyHigh on db-01 during the nightly backup.",
                "source": "alert",
                "subject": "host:db-01",
                "occurred_at": "2026-10-06T02:10:00Z",
                "metadata": {"signature": "DiskLatencyHigh"},
            },
            {"content": "Analyst closed it as expected backup load."},
        ],
    )
    assert response.status_code == 201
    body = response.json()
    assert body["created"] == 2 and body["duplicates"] == 0
    assert [item["status"] for item in body["items"]] == ["created", "created"]
    assert body["usage"]["items"] == 2 and body["usage"]["tokens"] > 10
    episode = Episode.objects.get(pk=body["items"][0]["episode_id"])
    assert episode.bank == caller.bank and episode.tenant == caller.tenant
    assert episode.subject == "host:db-01" and episode.metadata == {"signature": "DiskLatencyHigh"}
    assert episode.occurred_at.isoformat() == "2026-10-06T02:10:00+00:00"
    assert len(episode.embedding) == 384
    assert "disklatencyhigh" in str(episode.search_vector)
    assert episode.token_count > 5


def test_retained_items_are_recallable_when_the_call_returns(caller):
    post_retain(caller, [{"content": "The quartz turbine QX-9 was replaced on Tuesday."}])
    recall = caller.client.post(caller.url("recall"), {"query": "QX-9 turbine", "budget_tokens": 200}, format="json")
    assert [item["text"] for item in recall.json()["items"]] == ["The quartz turbine QX-9 was replaced on Tuesday."]


def test_same_item_twice_is_stored_once(caller):
    item = {"content": "Customer Acme churned.", "occurred_at": "2026-10-31T12:00:00Z", "subject": "account:acme"}
    first = post_retain(caller, [item]).json()
    second = post_retain(caller, [item])
    assert second.status_code == 200
    assert second.json()["created"] == 0 and second.json()["duplicates"] == 1
    assert second.json()["items"][0]["episode_id"] == first["items"][0]["episode_id"]
    assert Episode.objects.filter(bank=caller.bank).count() == 1


def test_same_content_at_another_time_is_another_episode(caller):
    post_retain(caller, [{"content": "Alert CPUHigh on web-1", "occurred_at": "2026-10-01T00:00:00Z"}])
    post_retain(caller, [{"content": "Alert CPUHigh on web-1", "occurred_at": "2026-10-02T00:00:00Z"}])
    assert Episode.objects.filter(bank=caller.bank).count() == 2


def test_duplicates_inside_one_batch_are_stored_once(caller):
    body = post_retain(caller, [{"content": "same"}, {"content": "same"}]).json()
    assert [item["status"] for item in body["items"]] == ["created", "duplicate"]
    assert body["items"][0]["episode_id"] == body["items"][1]["episode_id"]
    assert Episode.objects.filter(bank=caller.bank).count() == 1


def test_item_idempotency_key_dedupes_even_when_content_differs(caller):
    post_retain(caller, [{"content": "version one", "idempotency_key": "evt-1"}])
    body = post_retain(caller, [{"content": "version two", "idempotency_key": "evt-1"}]).json()
    assert body["duplicates"] == 1
    assert list(Episode.objects.filter(bank=caller.bank).values_list("content", flat=True)) == ["version one"]


def test_idempotency_key_header_replays_first_answer(caller):
    items = [{"content": "replay me"}]
    first = post_retain(caller, items, HTTP_IDEMPOTENCY_KEY="req-1").json()
    again = post_retain(caller, items, HTTP_IDEMPOTENCY_KEY="req-1").json()
    assert again["replayed"] is True
    assert again["batch_id"] == first["batch_id"]
    assert again["items"] == first["items"]
    assert RetainBatch.objects.filter(bank=caller.bank).count() == 1


def test_idempotency_key_reused_with_other_body_is_a_conflict(caller):
    post_retain(caller, [{"content": "one"}], HTTP_IDEMPOTENCY_KEY="req-2")
    response = post_retain(caller, [{"content": "two"}], HTTP_IDEMPOTENCY_KEY="req-2")
    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_key_reused"
    assert list(Episode.objects.filter(bank=caller.bank).values_list("content", flat=True)) == ["one"]


def test_failure_in_the_middle_of_a_batch_stores_none_of_it(caller, monkeypatch):
    post_retain(caller, [{"content": "already stored"}])

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr("beliefs.services.retain._finish", explode)
    with pytest.raises(RuntimeError):
        post_retain(caller, [{"content": "new one"}, {"content": "new two"}])
    assert list(Episode.objects.filter(bank=caller.bank).values_list("content", flat=True)) == ["already stored"]
    assert RetainBatch.objects.filter(bank=caller.bank).count() == 1


def test_async_retain_returns_a_batch_that_a_worker_stores_once(caller, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = caller.client.post(
            caller.url("retain"),
            {"items": [{"content": "bulk a"}, {"content": "bulk b"}], "async": True},
            format="json",
        )
    assert response.status_code == 202
    batch_id = response.json()["batch_id"]
    assert response.json()["status"] == "pending"
    assert len(callbacks) == 1  # the task is enqueued only after commit
    assert Episode.objects.filter(bank=caller.bank).count() == 0

    # A twice-delivered task: the second run finds the batch done and writes nothing.
    retain_batch_process(batch_id=batch_id)
    retain_batch_process(batch_id=batch_id)
    assert sorted(Episode.objects.filter(bank=caller.bank).values_list("content", flat=True)) == ["bulk a", "bulk b"]

    status = caller.client.get(caller.url(f"retain-batches/{batch_id}")).json()
    assert status["status"] == "done" and status["created_count"] == 2 and status["attempts"] == 1
    assert RetainBatch.objects.get(pk=batch_id).items == []


def test_async_retain_with_same_key_returns_the_same_batch(caller):
    payload = {"items": [{"content": "bulk"}], "async": True}
    first = caller.client.post(caller.url("retain"), payload, format="json", HTTP_IDEMPOTENCY_KEY="imp-1").json()
    second = caller.client.post(caller.url("retain"), payload, format="json", HTTP_IDEMPOTENCY_KEY="imp-1").json()
    assert first["batch_id"] == second["batch_id"]
    assert RetainBatch.objects.filter(bank=caller.bank).count() == 1


def test_retain_enqueues_extraction_after_commit(caller, django_capture_on_commit_callbacks, eager_tasks):
    with django_capture_on_commit_callbacks(execute=True):
        body = post_retain(caller, [{"content": "extract me"}]).json()
    episode = Episode.objects.get(pk=body["items"][0]["episode_id"])
    assert episode.extraction.extracted_at is not None
    assert RetainBatch.objects.get(pk=body["batch_id"]).extraction_status == "done"
