"""Redis state the queues keep between runs."""

from __future__ import annotations

import redis
from django.conf import settings

from memoryhub.queues.broker import redis_key


def forget_queue_state() -> None:
    """Drop coalescing markers and fair-share counters (an earlier run's bank ids may repeat in this one)."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    for pattern in ("memoryhub:queued:*", "memoryhub:fair:*", "memoryhub:rate:*"):  # rate: tenant windows
        keys = list(client.scan_iter(redis_key(pattern)))
        if keys:
            client.delete(*keys)
