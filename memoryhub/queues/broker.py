"""The Redis broker as MemoryHub reads it: one shared client, and how many messages wait per queue."""

from __future__ import annotations

import redis
from django.conf import settings

from memoryhub.queues.routing import PRIORITY_SEPARATOR, PRIORITY_STEPS, Queue

_client: redis.Redis | None = None


def redis_client() -> redis.Redis:
    """One client per process, with short timeouts: a broker outage must not stall a request."""
    global _client
    if _client is None:
        _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5)
    return _client


def redis_key(name: str) -> str:
    """``name`` as this stack's key in Redis (``REDIS_KEY_PREFIX``: stacks sharing one server keep apart)."""
    return f"{settings.REDIS_KEY_PREFIX}{name}"


def queue_keys(queue: str) -> list[str]:
    """The Redis lists holding ``queue``'s messages, one per priority step."""
    return [redis_key(queue if step == 0 else f"{queue}{PRIORITY_SEPARATOR}{step}") for step in PRIORITY_STEPS]


def queue_depths() -> dict[str, float]:
    """Messages waiting per queue (every priority list summed); NaN when the broker cannot be reached."""
    try:
        pipe = redis_client().pipeline()
        for queue in Queue:
            for key in queue_keys(queue):
                pipe.llen(key)
        lengths = pipe.execute()
    except Exception:
        return {str(queue): float("nan") for queue in Queue}
    steps = len(PRIORITY_STEPS)
    return {str(queue): float(sum(lengths[i * steps : (i + 1) * steps])) for i, queue in enumerate(Queue)}
