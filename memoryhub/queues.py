"""Background work is enqueued by task name, after the surrounding transaction commits.

Services never import ``tasks.py`` modules (tasks import services, not the other way
round). They call :func:`enqueue_on_commit` with a :class:`TaskName`; the task is sent
only once the transaction that wrote its input has committed, so a worker never reads
rows that are not there yet, and a rolled-back request enqueues nothing. Payloads are
ids only, never content.
"""

from __future__ import annotations

from enum import StrEnum

from django.db import transaction


class TaskName(StrEnum):
    """Registered names of the tasks that services enqueue."""

    PROCESS_RETAIN_BATCH = "beliefs.tasks.process_retain_batch_task"
    EXTRACT_BATCH = "beliefs.tasks.extract_batch_task"
    EXTRACT_BANK = "beliefs.tasks.extract_bank_task"
    CONSOLIDATE_BANK = "beliefs.tasks.consolidate_bank_task"
    REFRESH_MENTAL_MODELS = "beliefs.tasks.refresh_mental_models_task"
    DEFENSE_RESCAN = "beliefs.tasks.defense_rescan_task"
    RUN_ERASURE = "beliefs.tasks.run_erasure_task"


def enqueue(task: TaskName, *, countdown: float | None = None, **kwargs) -> None:
    """Send ``task`` now (eager mode runs it inline). Prefer :func:`enqueue_on_commit` inside a transaction."""
    from memoryhub.celery import app

    options = {"countdown": countdown} if countdown else {}
    # A signature resolves the registered task lazily, so eager mode and task routing apply as for ``.delay()``.
    app.signature(str(task), kwargs=kwargs).apply_async(**options)


def enqueue_on_commit(task: TaskName, *, countdown: float | None = None, **kwargs) -> None:
    """Send ``task`` with ``kwargs`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: enqueue(task, countdown=countdown, **kwargs))
