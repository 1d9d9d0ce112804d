"""Celery tasks: thin wrappers around services.

Rules: ids in, never model instances or content; ``acks_late`` with
``reject_on_worker_lost`` so a killed worker's task is redelivered; retries only for
transient database/broker errors, with backoff; every task is safe to run twice. The
PostgreSQL row (``RetainBatch``) is the source of truth, and ``requeue_stalled_batches``
sweeps work the broker lost.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.db import OperationalError, transaction
from django.utils import timezone

from beliefs.models import RetainBatch
from beliefs.services.extract import episodes_extract
from beliefs.services.retain import retain_batch_fail, retain_batch_process

logger = logging.getLogger(__name__)

_TRANSIENT = (OperationalError, ConnectionError, TimeoutError)
_TASK_OPTIONS = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": _TRANSIENT,
    "retry_backoff": True,
    "retry_backoff_max": 300,
    "max_retries": 8,
}
STALLED_AFTER = timedelta(minutes=10)
MAX_ATTEMPTS = 5


@shared_task(**_TASK_OPTIONS)
def process_retain_batch_task(*, batch_id: int) -> dict:
    try:
        batch = retain_batch_process(batch_id=batch_id)
    except RetainBatch.DoesNotExist:
        logger.warning("retain batch %s no longer exists", batch_id)
        return {"batch_id": batch_id, "status": "missing"}
    except _TRANSIENT:
        raise
    except Exception as exc:
        retain_batch_fail(batch_id=batch_id, reason=type(exc).__name__)
        logger.exception("retain batch %s failed", batch_id)
        raise
    logger.info("retain batch %s: %s created, %s duplicates", batch_id, batch.created_count, batch.duplicate_count)
    return {"batch_id": batch_id, "status": batch.status, "created": batch.created_count}


@shared_task(**_TASK_OPTIONS)
def extract_batch_task(*, batch_id: int) -> dict:
    processed = episodes_extract(batch_id=batch_id)
    return {"batch_id": batch_id, "processed": processed}


@shared_task(**_TASK_OPTIONS)
def requeue_stalled_batches_task() -> dict:
    """Re-enqueue async batches that the broker lost (pending or stuck in processing)."""
    cutoff = timezone.now() - STALLED_AFTER
    stalled = list(
        RetainBatch.objects.filter(
            mode=RetainBatch.Mode.ASYNC,
            status__in=[RetainBatch.Status.PENDING, RetainBatch.Status.PROCESSING],
            created_at__lt=cutoff,
            attempts__lt=MAX_ATTEMPTS,
        ).values_list("pk", flat=True)[:1000]
    )
    for batch_id in stalled:
        transaction.on_commit(lambda batch_id=batch_id: process_retain_batch_task.delay(batch_id=batch_id))
    return {"requeued": len(stalled)}
