"""Background work through a real Celery worker on the local Redis broker."""

import time
from datetime import timedelta

import pytest
from celery.contrib.testing.worker import start_worker
from django.utils import timezone

from beliefs.models import Episode, EpisodeExtraction, RetainBatch
from beliefs.services.retain import RetainItem, retain_async_submit
from beliefs.tasks import requeue_stalled_batches_task
from memoryhub.celery import app
from tests.helpers.callers import make_caller


def wait_for(predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_async_retain_is_stored_and_extracted_by_a_real_worker():
    caller = make_caller()
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        response = caller.client.post(
            caller.url("retain"),
            {"items": [{"content": f"imported ticket {n} about VPN drops"} for n in range(25)], "async": True},
            format="json",
        )
        assert response.status_code == 202
        batch_id = response.json()["batch_id"]
        assert wait_for(lambda: RetainBatch.objects.get(pk=batch_id).status == "done")
        assert wait_for(lambda: RetainBatch.objects.get(pk=batch_id).extraction_status == "done")

    status = caller.client.get(caller.url(f"retain-batches/{batch_id}")).json()
    assert status["created_count"] == 25 and status["duplicate_count"] == 0
    assert Episode.objects.filter(bank=caller.bank).count() == 25
    assert not EpisodeExtraction.objects.filter(bank=caller.bank, extracted_at__isnull=True).exists()
    recall = caller.client.post(caller.url("recall"), {"query": "ticket 7 VPN", "budget_tokens": 50}, format="json")
    assert "imported ticket 7 about VPN drops" in [item["text"] for item in recall.json()["items"]]


@pytest.mark.django_db(transaction=True)
def test_sweeper_requeues_a_batch_the_broker_lost(eager_tasks):
    caller = make_caller()
    # Submitted while the broker "lost" the message: the row exists, no task ran.
    app.conf.task_always_eager = False
    try:
        batch = retain_async_submit(bank=caller.bank, items=[RetainItem(content="lost in transit")])
    finally:
        app.conf.task_always_eager = True
    app.control.purge()
    RetainBatch.objects.filter(pk=batch.pk).update(created_at=timezone.now() - timedelta(hours=1))

    result = requeue_stalled_batches_task.apply().result

    assert result == {"requeued": 1}
    assert RetainBatch.objects.get(pk=batch.pk).status == "done"
    assert list(Episode.objects.filter(bank=caller.bank).values_list("content", flat=True)) == ["lost in transit"]
