"""Background work: enqueued by task name after commit, routed to one queue per kind of work.

- ``routing``: task names, queues, routes, coalescing rules and the worker layout (data);
- ``sending``: :func:`enqueue_on_commit` / :func:`enqueue` with coalescing and fair sharing;
- ``broker``: the Redis client and queue depths.

Services never import ``tasks.py`` modules: they call ``enqueue_on_commit(TaskName.X, ...)``.
"""

from memoryhub.queues.broker import queue_depths
from memoryhub.queues.routing import TASK_OPTIONS, TRANSIENT_ERRORS, WORKERS, Queue, TaskName
from memoryhub.queues.sending import UnknownTask, enqueue, enqueue_on_commit

__all__ = [
    "TASK_OPTIONS",
    "TRANSIENT_ERRORS",
    "WORKERS",
    "Queue",
    "TaskName",
    "UnknownTask",
    "enqueue",
    "enqueue_on_commit",
    "queue_depths",
]
