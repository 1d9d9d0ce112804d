"""Background work is enqueued by task name, after the surrounding transaction commits.

Services never import ``tasks.py`` modules (tasks import services, not the other way
round). They call :func:`enqueue_on_commit` with a :class:`TaskName`; the task is sent
only once the transaction that wrote its input has committed, so a worker never reads
rows that are not there yet, and a rolled-back request enqueues nothing. Payloads are
ids only, never content.

Where work goes (``routing``) keeps one slow bank from stalling everyone:

- **Queues.** Erasure, defense re-scans, interactive work (async retain batches a caller
  polls), per-bank background work and cross-tenant maintenance sweeps each have their
  own queue (:data:`ROUTES`), consumed by their own workers (:data:`WORKERS`). An
  erasure never waits behind a bulk import's extraction.
- **Coalescing.** Per-bank stages (extract, consolidate, refresh mental models) are
  queued at most once per bank at a time: a burst of retains into one bank schedules one
  run of each stage, not one per batch. The marker is cleared when the task starts, so
  work committed after that schedules the next run.
- **Fair sharing.** A tenant's enqueue rate over the last minute sets the message
  priority on its queue: a tenant that just sent a few hundred tasks goes behind one
  that sent a few, so a bulk import cannot starve other tenants.
- **Broker down.** Enqueueing never fails the request: the job row in PostgreSQL is the
  source of truth and the beat sweeps re-queue what the broker never got.
"""

from __future__ import annotations

import logging
import time

from celery import current_app
from django.conf import settings
from django.db import transaction

from memoryhub import metrics
from memoryhub.queues.broker import redis_client, redis_key
from memoryhub.queues.routing import (
    COALESCE_TTL_SECONDS,
    COALESCED,
    FAIR_SHARE_TIERS,
    PRIORITY_STEPS,
    TaskName,
    route_for,
)

logger = logging.getLogger(__name__)


def _coalesce_ttl(task: str) -> int:
    if task == TaskName.PROCESS_RETAIN_BATCH:
        return max(COALESCE_TTL_SECONDS, settings.MEMORYHUB["STALLED_AFTER_SECONDS"])
    return COALESCE_TTL_SECONDS


def _eager() -> bool:
    return bool(current_app.conf.task_always_eager)


def coalesce_key(task: str, bank_id) -> str:
    return redis_key(f"memoryhub:queued:{task}:{bank_id}")


def fair_priority(*, queue: str, tenant_id: int | None, now: float | None = None) -> int:
    """The priority step for the next task of ``tenant_id`` on ``queue``: 0 while it enqueues little."""
    if tenant_id is None:
        return 0
    window = int((now or time.time()) // 60)
    key = redis_key(f"memoryhub:fair:{queue}:{tenant_id}:{window}")
    pipe = redis_client().pipeline()
    pipe.incr(key)
    pipe.expire(key, 120)
    count, _ = pipe.execute()
    return next((step for limit, step in FAIR_SHARE_TIERS if count <= limit), PRIORITY_STEPS[-1])


class UnknownTask(LookupError):
    """A :class:`TaskName` that no task module registers (a renamed or removed task)."""


_task_modules_imported = False


def registered_task(name: str):
    """The task registered as ``name``, importing every app's task modules the first time.

    A process that never imported ``beliefs.tasks`` (a web process, a management command)
    has an empty registry until Celery imports the task modules; resolving by name before
    that would make eager mode publish to the broker instead of running the task inline.
    """
    global _task_modules_imported
    if not _task_modules_imported:
        current_app.loader.import_default_modules()
        _task_modules_imported = True
    try:
        return current_app.tasks[str(name)]
    except KeyError:
        raise UnknownTask(f"no task is registered as {name!r}") from None


def enqueue(task: TaskName, *, countdown: float | None = None, tenant_id: int | None = None, **kwargs) -> bool:
    """Send ``task`` now (eager mode runs it inline); False when it was coalesced or the broker is down.

    Prefer :func:`enqueue_on_commit` inside a transaction. ``tenant_id`` says whose work
    it is (fair sharing); it is not passed to the task. Raises :class:`UnknownTask` for a
    name no task module registers.
    """
    registered = registered_task(task)
    queue = route_for(task)
    options: dict = {"countdown": countdown} if countdown else {}
    if not _eager():
        try:
            bank_field = COALESCED.get(str(task))
            if bank_field in kwargs and not redis_client().set(
                coalesce_key(task, kwargs[bank_field]), "1", nx=True, ex=_coalesce_ttl(task)
            ):
                return False  # already queued: that run will see this work too
            options["priority"] = fair_priority(queue=queue, tenant_id=tenant_id)
        except Exception as exc:  # the broker is down: the sweeps re-queue from PostgreSQL
            _enqueue_failed(task, exc)
            return False
    try:
        # The registered task itself, so eager mode runs it inline and routing applies as for ``.delay()``.
        registered.apply_async(kwargs=kwargs, **options)
    except Exception as exc:
        if _eager():
            raise
        _enqueue_failed(task, exc)
        return False
    if settings.MEMORYHUB.get("FAULT_DUPLICATE_DELIVERY"):
        registered.apply_async(kwargs=kwargs, **options)  # fault injection: every task twice
    return True


def _enqueue_failed(task: str, exc: Exception) -> None:
    logger.warning("could not enqueue %s (%s); the beat sweeps will re-queue it", task, type(exc).__name__)
    metrics.observe_enqueue_failure(str(task))


def enqueue_on_commit(
    task: TaskName, *, countdown: float | None = None, tenant_id: int | None = None, **kwargs
) -> None:
    """Send ``task`` with ``kwargs`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: enqueue(task, countdown=countdown, tenant_id=tenant_id, **kwargs))


def release_coalesced(task_name: str, kwargs: dict) -> None:
    """A coalesced task started: work committed from now on needs (and schedules) another run."""
    bank_field = COALESCED.get(task_name)
    if not bank_field or bank_field not in kwargs or _eager():
        return
    try:
        redis_client().delete(coalesce_key(task_name, kwargs[bank_field]))
    except Exception as exc:  # the marker expires by itself
        logger.warning("could not clear the queued marker of %s: %s", task_name, type(exc).__name__)
