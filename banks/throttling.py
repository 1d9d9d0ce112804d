"""Rate limits for API keys: a sliding (moving) window in Redis, per key and per tenant.

The ``limits`` library keeps, per key and per tenant, the times of the requests of the
last minute (a Lua script, atomic in Redis): a request is allowed while fewer than the
limit were made in the 60 seconds before it, so no burst across a window edge ever
doubles the limit. Every web process shares the same counters.

Every API-key answer carries ``X-RateLimit-Limit``, ``X-RateLimit-Remaining``,
``X-RateLimit-Reset`` (Unix time when the oldest counted request leaves the window) and
``X-RateLimit-Scope`` (``key`` or ``tenant``: whichever has less room left); a refused
request is a 429 ``rate_limited`` with ``Retry-After``. When Redis cannot be reached
(socket timeouts of 0.5 s) the request is let through and the failure logged: an
unavailable limiter must not take the API down with it.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

from django.conf import settings
from limits import RateLimitItemPerMinute
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter
from rest_framework.throttling import BaseThrottle

from banks.models import ApiKey

logger = logging.getLogger(__name__)
_limiter: MovingWindowRateLimiter | None = None
REQUEST_ATTRIBUTE = "_memoryhub_rate_limit"


@dataclass(frozen=True)
class RateState:
    """What the rate-limit headers say for one request."""

    scope: str
    limit: int
    remaining: int
    reset_at: float

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(max(0, self.remaining)),
            "X-RateLimit-Reset": str(math.ceil(self.reset_at)),
            "X-RateLimit-Scope": self.scope,
        }


def clock() -> float:
    """The time the windows are kept in (``limits`` stamps entries with the client's clock)."""
    return time.time()


def limiter() -> MovingWindowRateLimiter:
    global _limiter
    if _limiter is None:
        storage = RedisStorage(
            settings.REDIS_URL,
            key_prefix="memoryhub:rate",
            socket_timeout=0.5,
            socket_connect_timeout=0.5,
            wrap_exceptions=True,
        )
        _limiter = MovingWindowRateLimiter(storage)
    return _limiter


def key_limit(api_key: ApiKey) -> int:
    return api_key.rate_limit_per_minute or settings.MEMORYHUB["RATE_LIMIT_PER_MINUTE"]


def tenant_limit() -> int:
    return settings.MEMORYHUB["TENANT_RATE_LIMIT_PER_MINUTE"]


def rate_limit_hit(*, api_key: ApiKey) -> tuple[bool, RateState]:
    """Count one request of ``api_key`` against its own and its tenant's window; say whether it may proceed."""
    windows = [
        ("tenant", RateLimitItemPerMinute(tenant_limit()), f"tenant:{api_key.tenant_id}"),
        ("key", RateLimitItemPerMinute(key_limit(api_key)), f"key:{api_key.prefix}"),
    ]
    engine = limiter()
    # The tenant's window is only tested first, so a request the tenant's limit refuses costs the key nothing.
    scope, item, identity = windows[0]
    if not engine.test(item, identity):
        return False, _state(engine, scope, item, identity)
    for scope, item, identity in reversed(windows):
        if not engine.hit(item, identity):
            return False, _state(engine, scope, item, identity)
    return True, min((_state(engine, *window) for window in windows), key=lambda state: state.remaining)


def _state(engine, scope: str, item, identity: str) -> RateState:
    stats = engine.get_window_stats(item, identity)
    return RateState(scope=scope, limit=item.amount, remaining=stats.remaining, reset_at=stats.reset_time)


class ApiKeyRateThrottle(BaseThrottle):
    """429 with ``Retry-After`` once a key, or its tenant, made its allowance of requests in the last minute."""

    state: RateState | None = None

    def allow_request(self, request, view) -> bool:
        api_key = request.auth if isinstance(request.auth, ApiKey) else None
        if api_key is None:
            return True
        try:
            allowed, self.state = rate_limit_hit(api_key=api_key)
        except Exception as exc:  # limits wraps every storage failure; never fail a request for it
            logger.warning("rate limiter unavailable, request allowed: %s", type(exc).__name__)
            return True
        setattr(request._request, REQUEST_ATTRIBUTE, self.state)
        return allowed

    def wait(self) -> float:
        if self.state is None:
            return 1.0
        return max(1.0, math.ceil(self.state.reset_at - clock()))


class RateLimitHeadersMiddleware:
    """Adds the ``X-RateLimit-*`` headers (set by the throttle) to the answer, success or error."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        state = getattr(request, REQUEST_ATTRIBUTE, None)
        if state is not None:
            for name, value in state.headers().items():
                response[name] = value
        return response
