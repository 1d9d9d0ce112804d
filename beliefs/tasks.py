"""Celery tasks: thin wrappers around services.

Rules: ids in, never model instances or content; ``acks_late`` with
``reject_on_worker_lost`` so a killed worker's task is redelivered; retries only for
transient database/broker errors, with backoff; every task is safe to run twice. The
PostgreSQL row (``RetainBatch``) is the source of truth, and ``requeue_stalled_batches``
sweeps work the broker lost.
"""

from __future__ import annotations

import functools
import logging
from contextlib import contextmanager
from datetime import timedelta

from celery import shared_task
from celery.signals import task_failure, task_prerun
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from banks.models import Bank
from banks.policy import bank_policy
from beliefs.models import DefenseRescan, ErasureRequest, RetainBatch
from beliefs.selectors.backlog import banks_with_backlog
from beliefs.services.consolidate import consolidate
from beliefs.services.decay import beliefs_decay
from beliefs.services.defense.rescan import defense_rescan_run
from beliefs.services.extract import bank_extract, batches_mark_extracted
from beliefs.services.forget.subjects import erasure_request_run
from beliefs.services.mental_models import mental_models_refresh
from beliefs.services.retain import retain_batch_fail, retain_batch_process
from beliefs.services.vector_indexes import bank_vector_index_refresh, vector_index_due, vector_indexes_refresh
from memoryhub import metrics
from memoryhub.queues import TASK_OPTIONS, TRANSIENT_ERRORS, TaskName, enqueue_on_commit
from memoryhub.tenancy import clear_session_scope, rls_bypass, tenant_scope

logger = logging.getLogger(__name__)

THROTTLE_DELAY = 2  # seconds between runs of a throttled bank
BUSY_RETRY_DELAY = 5
MAX_ATTEMPTS = 5


def _tenant_of(model, pk: int) -> int | None:
    """The tenant of one row, read across tenants (the task does not know it yet)."""
    with rls_bypass():
        return model.objects.filter(pk=pk).values_list("tenant_id", flat=True).first()


def _scoped_by(model, id_kwarg: str):
    """Run the task in the tenant scope of the ``model`` row its ``id_kwarg`` names; a row gone since is "missing"."""

    def decorate(task):
        @functools.wraps(task)
        def run(**kwargs):
            pk = kwargs[id_kwarg]
            tenant_id = _tenant_of(model, pk)
            if tenant_id is None:
                logger.warning("%s %s no longer exists", model.__name__, pk)
                return {id_kwarg: pk, "status": "missing"}
            with tenant_scope(tenant_id):
                return task(**kwargs)

        return run

    return decorate


@shared_task(**TASK_OPTIONS)
@_scoped_by(RetainBatch, "batch_id")
def process_retain_batch_task(*, batch_id: int) -> dict:
    return _process_retain_batch(batch_id)


def _process_retain_batch(batch_id: int) -> dict:
    try:
        batch = retain_batch_process(batch_id=batch_id)
    except RetainBatch.DoesNotExist:
        logger.warning("retain batch %s no longer exists", batch_id)
        return {"batch_id": batch_id, "status": "missing"}
    except TRANSIENT_ERRORS:
        raise
    except Exception as exc:
        retain_batch_fail(batch_id=batch_id, reason=type(exc).__name__)
        logger.exception("retain batch %s failed", batch_id)
        raise
    logger.info("retain batch %s: %s created, %s duplicates", batch_id, batch.created_count, batch.duplicate_count)
    return {"batch_id": batch_id, "status": batch.status, "created": batch.created_count}


def _stalled_after() -> timedelta:
    return timedelta(seconds=settings.MEMORYHUB["STALLED_AFTER_SECONDS"])


@shared_task(**TASK_OPTIONS)
@_scoped_by(RetainBatch, "batch_id")
def extract_batch_task(*, batch_id: int) -> dict:
    """Extraction after a retain (messages queued before extraction was coalesced per bank)."""
    bank_id = RetainBatch.objects.filter(pk=batch_id).values_list("bank_id", flat=True).first()
    return {"batch_id": batch_id, **_extract_and_chain(bank_id)}


@shared_task(**TASK_OPTIONS)
def extract_bank_task(*, bank_id: int) -> dict:
    with _bank_scope(bank_id):
        return _extract_and_chain(bank_id)


@contextmanager
def _bank_scope(bank_id: int):
    """Scope the task's session to the bank's tenant (banks themselves are readable without a scope)."""
    tenant_id = Bank.objects.filter(pk=bank_id).values_list("tenant_id", flat=True).first()
    if tenant_id is None:
        yield
        return
    with tenant_scope(tenant_id):
        yield


def _extract_and_chain(bank_id: int) -> dict:
    bank = Bank.objects.filter(pk=bank_id).first()
    if bank is None:
        return {"bank_id": bank_id, "status": "missing"}
    result = bank_extract(bank=bank)
    if result.paused:
        return {"bank_id": bank_id, "status": "paused"}
    batches_mark_extracted(bank=bank)
    if result.remaining:  # throttled: the rest in a later run, after consolidation had its turn
        enqueue_on_commit(TaskName.EXTRACT_BANK, bank_id=bank_id, tenant_id=bank.tenant_id, countdown=THROTTLE_DELAY)
    enqueue_on_commit(TaskName.CONSOLIDATE_BANK, bank_id=bank_id, tenant_id=bank.tenant_id)
    if result.episodes and vector_index_due(bank):  # the bank grew past a size that asks for its own index
        enqueue_on_commit(TaskName.REFRESH_BANK_VECTOR_INDEX, bank_id=bank_id, tenant_id=bank.tenant_id)
    logger.info("bank %s: %s episodes extracted, %s facts", bank_id, result.episodes, result.facts)
    return {"bank_id": bank_id, "episodes": result.episodes, "facts": result.facts, "remaining": result.remaining}


@shared_task(bind=True, **TASK_OPTIONS)
def consolidate_bank_task(self, *, bank_id: int) -> dict:
    bank = Bank.objects.filter(pk=bank_id).first()
    if bank is None:
        return {"bank_id": bank_id, "status": "missing"}
    with tenant_scope(bank.tenant_id):
        result = consolidate(bank=bank)
    tenant_id = bank.tenant_id
    if result.busy:  # another worker holds this bank; it cannot see facts stored after it started
        enqueue_on_commit(TaskName.CONSOLIDATE_BANK, bank_id=bank_id, tenant_id=tenant_id, countdown=BUSY_RETRY_DELAY)
    elif result.remaining and not result.paused:
        enqueue_on_commit(TaskName.CONSOLIDATE_BANK, bank_id=bank_id, tenant_id=tenant_id, countdown=THROTTLE_DELAY)
    if result.beliefs_formed or result.beliefs_changed:
        enqueue_on_commit(TaskName.REFRESH_MENTAL_MODELS, bank_id=bank_id, tenant_id=tenant_id)
    return {
        "bank_id": bank_id,
        "facts": result.facts,
        "formed": result.beliefs_formed,
        "changed": result.beliefs_changed,
        "busy": result.busy,
        "paused": result.paused,
    }


@shared_task(**TASK_OPTIONS)
def refresh_mental_models_task(*, bank_id: int) -> dict:
    bank = Bank.objects.filter(pk=bank_id).first()
    if bank is None:
        return {"bank_id": bank_id, "refreshed": 0}
    with tenant_scope(bank.tenant_id):
        return {"bank_id": bank_id, "refreshed": mental_models_refresh(bank=bank)}


@shared_task(**TASK_OPTIONS)
def decay_beliefs_task() -> dict:
    """Hourly: every bank's unconfirmed beliefs lose confidence on the stated curve."""
    changed_total = 0
    with rls_bypass():
        banks = list(Bank.objects.filter(beliefs__isnull=False).distinct())
    for bank in banks:
        if bank_policy(bank).background_paused:
            continue
        with tenant_scope(bank.tenant_id):
            changed = beliefs_decay(bank=bank)
        changed_total += changed
        if changed:
            enqueue_on_commit(TaskName.REFRESH_MENTAL_MODELS, bank_id=bank.pk, tenant_id=bank.tenant_id)
    return {"changed": changed_total}


@shared_task(**TASK_OPTIONS)
def resume_stalled_banks_task() -> dict:
    """Banks whose episodes or facts wait too long (a lost task, a crashed worker) get their work re-queued."""
    resumed = []
    with rls_bypass():
        waiting = banks_with_backlog(older_than=timezone.now() - _stalled_after())
    for bank in Bank.objects.filter(pk__in=waiting):
        if bank_policy(bank).background_paused:
            continue
        resumed.append(bank.pk)
        enqueue_on_commit(TaskName.EXTRACT_BANK, bank_id=bank.pk, tenant_id=bank.tenant_id)
    return {"resumed": resumed}


@shared_task(**TASK_OPTIONS)
def requeue_stalled_batches_task() -> dict:
    """Re-enqueue async batches that the broker lost: waiting too long, or started too long ago by a worker
    that died. One still queued is not sent again (``memoryhub.queues`` coalesces batch messages)."""
    cutoff = timezone.now() - _stalled_after()
    with rls_bypass():
        stalled = list(
            RetainBatch.objects.filter(
                Q(status=RetainBatch.Status.PENDING, created_at__lt=cutoff)
                | Q(status=RetainBatch.Status.PROCESSING, started_at__lt=cutoff),
                mode=RetainBatch.Mode.ASYNC,
                attempts__lt=MAX_ATTEMPTS,
            ).values_list("pk", "tenant_id")[:1000]
        )
    for batch_id, tenant_id in stalled:
        enqueue_on_commit(TaskName.PROCESS_RETAIN_BATCH, batch_id=batch_id, tenant_id=tenant_id)
    return {"requeued": len(stalled)}


@shared_task(**TASK_OPTIONS)
@_scoped_by(ErasureRequest, "request_id")
def run_erasure_task(*, request_id: int) -> dict:
    request = erasure_request_run(request_id=request_id)
    return {"request_id": request_id, "status": request.status}


@shared_task(**TASK_OPTIONS)
@_scoped_by(DefenseRescan, "rescan_id")
def defense_rescan_task(*, rescan_id: int) -> dict:
    rescan = defense_rescan_run(rescan_id=rescan_id)
    return {"rescan_id": rescan_id, "status": rescan.status, "redacted_episodes": rescan.redacted_episodes}


@shared_task(**TASK_OPTIONS)
def refresh_bank_vector_index_task(*, bank_id: int) -> dict:
    """A bank grew past a size that asks for its own vector index to be built or rebuilt (seen by extraction)."""
    bank = Bank.objects.filter(pk=bank_id).first()
    if bank is None:
        return {"bank_id": bank_id, "status": "missing"}
    return {"bank_id": bank_id, "status": bank_vector_index_refresh(bank=bank)}


@shared_task(**TASK_OPTIONS)
def refresh_vector_indexes_task() -> dict:
    """Hourly: give large banks their own vector index, rebuild those whose bank doubled or halved, drop the rest."""
    return vector_indexes_refresh()


task_prerun.connect(lambda **kwargs: clear_session_scope(), weak=False)
task_failure.connect(
    lambda sender=None, **kwargs: metrics.observe_task_failure(getattr(sender, "name", "?")), weak=False
)
