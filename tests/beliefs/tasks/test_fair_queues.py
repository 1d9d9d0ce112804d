"""One slow bank must not stall everyone: coalesced per-bank stages, own queues, fair sharing, double delivery."""

from __future__ import annotations

import pytest
from celery.contrib.testing.worker import start_worker
from celery.signals import task_prerun

from beliefs.models import Belief, Episode, ErasureRequest, Evidence, Fact, RetainBatch
from beliefs.services.forget.subjects import erasure_request_create
from beliefs.services.retain import RetainItem, retain, retain_async_submit
from memoryhub.celery import app
from memoryhub.queues import Queue, TaskName, queue_depths
from tests.beliefs.tasks.test_worker import wait_for
from tests.helpers.callers import make_caller
from tests.helpers.consolidation import T0, days, dismissal
from tests.helpers.queues import forget_queue_state


@pytest.fixture
def empty_broker():
    app.control.purge()
    forget_queue_state()
    yield
    app.amqp.queues.select([str(queue) for queue in Queue])  # a worker started with `queues=` narrowed the app's set
    app.control.purge()
    forget_queue_state()


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_retains_into_one_bank_queues_one_extraction_run(empty_broker):
    bulk, other = make_caller(), make_caller()
    for n in range(25):
        retain(bank=bulk.bank, items=[RetainItem(content=f"imported ticket {n} about VPN drops")])
    retain(bank=other.bank, items=[RetainItem(content="one note in another bank")])

    depths = queue_depths()
    # One extraction run per bank (it takes every pending episode of the bank), not one per batch.
    assert depths[Queue.BACKGROUND] == 2
    assert depths[Queue.ERASURE] == depths[Queue.INTERACTIVE] == 0


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_erasure_in_another_tenant_is_not_stuck_behind_a_bulk_import(empty_broker):
    bulk, other = make_caller(), make_caller()
    batches = [
        retain_async_submit(bank=bulk.bank, items=[RetainItem(content=f"bulk row {b}-{n}") for n in range(10)]).pk
        for b in range(40)
    ]
    retain(bank=bulk.bank, items=[RetainItem(content=f"bulk sync row {n}") for n in range(20)])
    retain(bank=other.bank, items=[RetainItem(content="Zed asked for erasure.", subject="customer:zed")])
    request = erasure_request_create(tenant=other.tenant, bank=other.bank, subject="customer:zed", actor="t")

    # The erasure worker of `make run`: it serves its own queue, whatever waits on the others.
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30, queues=[Queue.ERASURE]):
        assert wait_for(lambda: ErasureRequest.objects.get(pk=request.pk).status == "done", timeout=10)

    assert not Episode.objects.filter(bank=other.bank).exists()
    assert RetainBatch.objects.filter(pk__in=batches, status="pending").count() == 40  # the import still waits
    assert queue_depths()[Queue.INTERACTIVE] == 40


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_light_tenant_is_served_before_a_bulk_tenant_finishes(empty_broker):
    bulk, light = make_caller(), make_caller()
    heavy = [retain_async_submit(bank=bulk.bank, items=[RetainItem(content=f"bulk {n}")]).pk for n in range(30)]
    mine = retain_async_submit(bank=light.bank, items=[RetainItem(content="the light tenant's one item")]).pk

    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30, queues=[Queue.INTERACTIVE]):
        assert wait_for(lambda: not RetainBatch.objects.exclude(status="done").exists(), timeout=60)

    order = list(RetainBatch.objects.order_by("finished_at", "id").values_list("pk", flat=True))
    assert set(order) == {*heavy, mine}
    # The bulk tenant's first tasks keep full priority; after that the light tenant goes first (FIFO: last).
    assert order.index(mine) <= 10


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_every_task_delivered_twice_still_writes_everything_once(empty_broker, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "FAULT_DUPLICATE_DELIVERY": True}
    caller = make_caller()
    items = [dismissal("DiskIOHigh", "db-3", T0 + days(n)) for n in range(4)]
    items += [dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(3)]
    ran: list[str] = []

    def count(sender=None, **_):
        ran.append(sender.name)

    task_prerun.connect(count, weak=False)
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30, queues=list(Queue)):
            batch = retain_async_submit(bank=caller.bank, items=items)
            assert wait_for(
                lambda: (
                    RetainBatch.objects.get(pk=batch.pk).extraction_status == "done"
                    and not Fact.objects.filter(bank=caller.bank, consolidated_at__isnull=True).exists()
                    and Belief.objects.filter(bank=caller.bank).count() == 2
                ),
                timeout=60,
            )
            assert wait_for(lambda: ran.count(TaskName.CONSOLIDATE_BANK) >= 2)
    finally:
        task_prerun.disconnect(count)

    assert ran.count(TaskName.PROCESS_RETAIN_BATCH) == 2  # really delivered twice
    assert Episode.objects.filter(bank=caller.bank).count() == 7
    assert Fact.objects.filter(bank=caller.bank).count() == 7
    assert Evidence.objects.filter(bank=caller.bank).count() == 7
    assert sorted(Belief.objects.filter(bank=caller.bank).values_list("statement", "proof_count")) == [
        ("alert CpuSpike on web-1 is benign", 3),
        ("alert DiskIOHigh on db-3 is benign", 4),
    ]
