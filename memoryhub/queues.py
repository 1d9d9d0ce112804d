"""Background work is enqueued by task name, after the surrounding transaction commits.

Services never import ``tasks.py`` modules (tasks import services, not the other way
round). They call :func:`enqueue_on_commit` with a :class:`TaskName`; the task is sent
only once the transaction that wrote its input has committed, so a worker never reads
rows that are not there yet, and a rolled-back request enqueues nothing. Payloads are
ids only, never content.

This module is also the one place that decides *where* work goes, so one slow bank
cannot stall everyone:

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
from dataclasses import dataclass
from enum import StrEnum

from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)


class TaskName(StrEnum):
    """Registered names of the tasks that services enqueue."""

    PROCESS_RETAIN_BATCH = "beliefs.tasks.process_retain_batch_task"
    EXTRACT_BATCH = "beliefs.tasks.extract_batch_task"
    EXTRACT_BANK = "beliefs.tasks.extract_bank_task"
    CONSOLIDATE_BANK = "beliefs.tasks.consolidate_bank_task"
    REFRESH_MENTAL_MODELS = "beliefs.tasks.refresh_mental_models_task"
    DEFENSE_RESCAN = "beliefs.tasks.defense_rescan_task"
    RUN_ERASURE = "beliefs.tasks.run_erasure_task"


class Queue(StrEnum):
    """Celery queues. Each has its own worker in ``make run`` (see :data:`WORKERS`)."""

    INTERACTIVE = "interactive"
    BACKGROUND = "background"
    MAINTENANCE = "maintenance"
    ERASURE = "erasure"
    DEFENSE = "defense"


DEFAULT_QUEUE = Queue.BACKGROUND

# Task name -> queue. Beat sweeps are listed by name: services never enqueue them.
ROUTES: dict[str, Queue] = {
    TaskName.PROCESS_RETAIN_BATCH: Queue.INTERACTIVE,
    TaskName.EXTRACT_BATCH: Queue.BACKGROUND,
    TaskName.EXTRACT_BANK: Queue.BACKGROUND,
    TaskName.CONSOLIDATE_BANK: Queue.BACKGROUND,
    TaskName.REFRESH_MENTAL_MODELS: Queue.BACKGROUND,
    TaskName.RUN_ERASURE: Queue.ERASURE,
    TaskName.DEFENSE_RESCAN: Queue.DEFENSE,
    "beliefs.tasks.requeue_stalled_batches_task": Queue.MAINTENANCE,
    "beliefs.tasks.resume_stalled_banks_task": Queue.MAINTENANCE,
    "beliefs.tasks.decay_beliefs_task": Queue.MAINTENANCE,
    "beliefs.tasks.score_interventions_task": Queue.MAINTENANCE,
    "beliefs.tasks.refresh_vector_indexes_task": Queue.MAINTENANCE,
}

# Tasks queued at most once per target at a time (task -> the kwarg naming the target): per-bank stages, and
# async batches (so a beat sweep re-sending a batch that still waits in a long queue sends nothing).
COALESCED: dict[str, str] = {
    TaskName.EXTRACT_BANK: "bank_id",
    TaskName.CONSOLIDATE_BANK: "bank_id",
    TaskName.REFRESH_MENTAL_MODELS: "bank_id",
    TaskName.PROCESS_RETAIN_BATCH: "batch_id",
}
# A marker outlives a lost message by at most this long; the beat sweeps catch the rest.
COALESCE_TTL_SECONDS = 120


def _coalesce_ttl(task: str) -> int:
    if task == TaskName.PROCESS_RETAIN_BATCH:
        return max(COALESCE_TTL_SECONDS, settings.MEMORYHUB["STALLED_AFTER_SECONDS"])
    return COALESCE_TTL_SECONDS


@dataclass(frozen=True)
class WorkerSpec:
    """One Celery worker process group of ``make run`` (and of a production deployment)."""

    name: str
    queues: tuple[Queue, ...]
    concurrency: int = 1
    beat: bool = False

    def command(self, python: str = "python") -> list[str]:
        args = [python, "-m", "celery", "-A", "memoryhub", "worker", "--loglevel", "INFO"]
        args += ["-Q", ",".join(self.queues), "-n", f"{self.name}@%h", "--concurrency", str(self.concurrency)]
        return args + (["--beat"] if self.beat else [])


WORKERS: tuple[WorkerSpec, ...] = (
    WorkerSpec("interactive", (Queue.INTERACTIVE,)),
    WorkerSpec("background", (Queue.BACKGROUND, Queue.MAINTENANCE), beat=True),
    WorkerSpec("erasure", (Queue.ERASURE,)),
    WorkerSpec("defense", (Queue.DEFENSE,)),
)

# Redis emulates priorities with one list per step (``CELERY_BROKER_TRANSPORT_OPTIONS``); 0 is served first.
PRIORITY_STEPS = (0, 3, 6, 9)
PRIORITY_SEPARATOR = "\x06\x16"  # kombu's separator between a queue's name and its priority step
# Tasks a tenant may enqueue on one queue per minute before its next ones yield to other tenants.
FAIR_SHARE_TIERS = ((10, 0), (100, 3), (1000, 6))


def route_for(task: str) -> Queue:
    return ROUTES.get(str(task), DEFAULT_QUEUE)


def celery_config() -> dict:
    """Celery settings derived from the routing above (applied by ``memoryhub.celery``)."""
    from kombu import Queue as KombuQueue

    return {
        "task_default_queue": str(DEFAULT_QUEUE),
        "task_queues": [KombuQueue(str(queue), routing_key=str(queue)) for queue in Queue],
        "task_routes": {str(name): {"queue": str(queue)} for name, queue in ROUTES.items()},
        "task_default_priority": 0,
    }


def queue_keys(queue: str) -> list[str]:
    """The Redis lists holding ``queue``'s messages, one per priority step."""
    return [queue if step == 0 else f"{queue}{PRIORITY_SEPARATOR}{step}" for step in PRIORITY_STEPS]


_redis_client = None


def _redis():
    global _redis_client
    if _redis_client is None:
        import redis

        _redis_client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5)
    return _redis_client


def _eager() -> bool:
    from memoryhub.celery import app

    return bool(app.conf.task_always_eager)


def coalesce_key(task: str, bank_id) -> str:
    return f"memoryhub:queued:{task}:{bank_id}"


def fair_priority(*, queue: str, tenant_id: int | None, now: float | None = None) -> int:
    """The priority step for the next task of ``tenant_id`` on ``queue``: 0 while it enqueues little."""
    if tenant_id is None:
        return 0
    window = int((now or time.time()) // 60)
    key = f"memoryhub:fair:{queue}:{tenant_id}:{window}"
    pipe = _redis().pipeline()
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
    from memoryhub.celery import app

    if not _task_modules_imported:
        app.loader.import_default_modules()
        _task_modules_imported = True
    try:
        return app.tasks[str(name)]
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
            if bank_field in kwargs and not _redis().set(
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
    from memoryhub import metrics

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
        _redis().delete(coalesce_key(task_name, kwargs[bank_field]))
    except Exception as exc:  # the marker expires by itself
        logger.warning("could not clear the queued marker of %s: %s", task_name, type(exc).__name__)


def queue_depths() -> dict[str, float]:
    """Messages waiting per queue (every priority list summed); NaN when the broker cannot be reached."""
    try:
        pipe = _redis().pipeline()
        for queue in Queue:
            for key in queue_keys(queue):
                pipe.llen(key)
        lengths = pipe.execute()
    except Exception:
        return {str(queue): float("nan") for queue in Queue}
    steps = len(PRIORITY_STEPS)
    return {str(queue): float(sum(lengths[i * steps : (i + 1) * steps])) for i, queue in enumerate(Queue)}


def _main(argv: list[str]) -> int:
    """``python -m memoryhub.queues workers``: the worker command lines of a deployment."""
    if argv[1:] != ["workers"]:
        print("usage: python -m memoryhub.queues workers")
        return 2
    for spec in WORKERS:
        print(" ".join(spec.command()))
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(_main(sys.argv))
