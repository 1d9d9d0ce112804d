"""Where background work goes: task names, queues, routes, coalescing and worker layout (data only).

``memoryhub.celery`` reads :func:`celery_config` from here; ``memoryhub.queues.sending``
enqueues by :class:`TaskName`; ``manage.py serve`` and deployments start :data:`WORKERS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from django.db import InterfaceError, OperationalError
from kombu import Queue as KombuQueue


class TaskName(StrEnum):
    """Registered names of the tasks that services enqueue."""

    PROCESS_RETAIN_BATCH = "beliefs.tasks.process_retain_batch_task"
    EXTRACT_BATCH = "beliefs.tasks.extract_batch_task"
    EXTRACT_BANK = "beliefs.tasks.extract_bank_task"
    CONSOLIDATE_BANK = "beliefs.tasks.consolidate_bank_task"
    REFRESH_MENTAL_MODELS = "beliefs.tasks.refresh_mental_models_task"
    DEFENSE_RESCAN = "beliefs.tasks.defense_rescan_task"
    RUN_ERASURE = "beliefs.tasks.run_erasure_task"
    REFRESH_BANK_VECTOR_INDEX = "beliefs.tasks.refresh_bank_vector_index_task"


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
    TaskName.REFRESH_BANK_VECTOR_INDEX: Queue.MAINTENANCE,
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
    TaskName.REFRESH_BANK_VECTOR_INDEX: "bank_id",
    TaskName.PROCESS_RETAIN_BATCH: "batch_id",
}
# A marker outlives a lost message by at most this long; the beat sweeps catch the rest.
COALESCE_TTL_SECONDS = 120


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
    return {
        "task_default_queue": str(DEFAULT_QUEUE),
        "task_queues": [KombuQueue(str(queue), routing_key=str(queue)) for queue in Queue],
        "task_routes": {str(name): {"queue": str(queue)} for name, queue in ROUTES.items()},
        "task_default_priority": 0,
    }


# Every task: acknowledged after it ran (a killed worker's task is delivered again), and retried with backoff
# only on transient database or broker errors. Tasks are written to be safe to run twice.
TRANSIENT_ERRORS = (OperationalError, InterfaceError, ConnectionError, TimeoutError)
TASK_OPTIONS = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": True,
    "retry_backoff_max": 300,
    "max_retries": 8,
}
