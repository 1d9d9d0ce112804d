"""Per-key rate limits in Redis: a fixed one-minute window per API key.

Every web process shares the same counters, so the limit holds however many workers
serve the API. When Redis cannot be reached the request is let through and the
failure logged: an unavailable limiter must not take the API down with it.
"""

from __future__ import annotations

import logging
import time

import redis
from django.conf import settings
from rest_framework.throttling import BaseThrottle

from banks.models import ApiKey

logger = logging.getLogger(__name__)
_client: redis.Redis | None = None


def _redis() -> redis.Redis:
    global _client
    if _client is None:
        _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5)
    return _client


class ApiKeyRateThrottle(BaseThrottle):
    """429 with ``Retry-After`` once a key made its allowance of requests this minute."""

    def allow_request(self, request, view) -> bool:
        api_key = request.auth if isinstance(request.auth, ApiKey) else None
        if api_key is None:
            return True
        limit = api_key.rate_limit_per_minute or settings.MEMORYHUB["RATE_LIMIT_PER_MINUTE"]
        now = time.time()
        window = int(now // 60)
        self.wait_seconds = 60 - (now % 60)
        key = f"memoryhub:rate:{api_key.prefix}:{window}"
        try:
            pipe = _redis().pipeline()
            pipe.incr(key)
            pipe.expire(key, 120)
            count, _ = pipe.execute()
        except redis.RedisError as exc:
            logger.warning("rate limiter unavailable, request allowed: %s", type(exc).__name__)
            return True
        return count <= limit

    def wait(self) -> float:
        return max(1.0, round(self.wait_seconds))
