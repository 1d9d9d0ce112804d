"""Rate limits: a sliding (moving) window in Redis per API key, per tenant, per person and per client address.

The ``limits`` library keeps, per window, the times of the requests of the last minute (a
Lua script, atomic in Redis): a request is allowed while fewer than the limit were made in
the 60 seconds before it, so no burst across a window edge ever doubles the limit. Every
web process shares the same counters. The windows:

- ``key`` and ``tenant``: API-key requests, per key and across all keys of its tenant;
- ``user``: a signed-in person, dashboard pages and session-authenticated API calls
  together (``MEMORYHUB_USER_RATE_LIMIT_PER_MINUTE``);
- ``auth``: requests from one client address whose bearer key fails to authenticate
  (``MEMORYHUB_AUTH_FAILURES_PER_MINUTE``; ``banks.authentication``), so guessing keys is
  neither free nor a way around the limits.

Every limited answer carries ``X-RateLimit-Limit``, ``X-RateLimit-Remaining``,
``X-RateLimit-Reset`` (Unix time when the oldest counted request leaves the window) and
``X-RateLimit-Scope`` (``key``, ``tenant`` or ``user``: whichever has less room left); a
refused request is a 429 ``rate_limited`` with ``Retry-After`` (a dashboard page gets the
same status and headers with a short HTML page). When Redis cannot be reached (socket
timeouts of 0.5 s) the request is let through and the failure logged: an unavailable
limiter must not take the service down with it.
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
from memoryhub.queues.broker import redis_key

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
            key_prefix=redis_key("memoryhub:rate"),
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


def user_limit() -> int:
    return settings.MEMORYHUB["USER_RATE_LIMIT_PER_MINUTE"]


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


def user_rate_limit_hit(*, user_id: int) -> tuple[bool, RateState]:
    """Count one request of a signed-in person (a page or a session API call); say whether it may proceed."""
    item = RateLimitItemPerMinute(user_limit())
    engine = limiter()
    allowed = engine.hit(item, f"user:{user_id}")
    return allowed, _state(engine, "user", item, f"user:{user_id}")


def auth_failure_wait(*, address: str) -> int:
    """Seconds until ``address`` may send a bearer key again: 0 unless it failed too often (counts nothing)."""
    item = RateLimitItemPerMinute(settings.MEMORYHUB["AUTH_FAILURES_PER_MINUTE"])
    engine = limiter()
    if engine.test(item, f"auth:{address}"):
        return 0
    return retry_after(_state(engine, "auth", item, f"auth:{address}"))


def auth_failure_hit(*, address: str) -> None:
    """Count one failing bearer key from ``address``."""
    limiter().hit(RateLimitItemPerMinute(settings.MEMORYHUB["AUTH_FAILURES_PER_MINUTE"]), f"auth:{address}")


def _state(engine, scope: str, item, identity: str) -> RateState:
    stats = engine.get_window_stats(item, identity)
    return RateState(scope=scope, limit=item.amount, remaining=stats.remaining, reset_at=stats.reset_time)


def retry_after(state: RateState | None) -> int:
    if state is None:
        return 1
    return max(1, math.ceil(state.reset_at - clock()))


def _person_id(user) -> int | None:
    """The id of a signed-in person (``None`` for anonymous callers and API-key principals)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return getattr(user, "pk", None)


class RequestRateThrottle(BaseThrottle):
    """429 with ``Retry-After`` once a key (or its tenant), or a signed-in person, used the last minute's allowance."""

    state: RateState | None = None

    def allow_request(self, request, view) -> bool:
        api_key = request.auth if isinstance(request.auth, ApiKey) else None
        user_id = None if api_key is not None else _person_id(request.user)
        if api_key is None and user_id is None:
            return True  # nobody authenticated: the permission check answers 401 first
        try:
            if api_key is not None:
                allowed, self.state = rate_limit_hit(api_key=api_key)
            else:
                allowed, self.state = user_rate_limit_hit(user_id=user_id)
        except Exception as exc:  # limits wraps every storage failure; never fail a request for it
            logger.warning("rate limiter unavailable, request allowed: %s", type(exc).__name__)
            return True
        setattr(request._request, REQUEST_ATTRIBUTE, self.state)
        return allowed

    def wait(self) -> float:
        return float(retry_after(self.state))


class SessionRateLimitMiddleware:
    """The ``user`` window for dashboard pages (everything outside ``/api/``, whose views throttle themselves).

    After ``AuthenticationMiddleware``: a signed-in person's page request counts against the
    same window as their session API calls; over the limit it is a 429 page with ``Retry-After``.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info.startswith("/api/"):
            return self.get_response(request)
        user_id = _person_id(getattr(request, "user", None))
        if user_id is None:
            return self.get_response(request)
        try:
            allowed, state = user_rate_limit_hit(user_id=user_id)
        except Exception as exc:  # fail open, as for the API
            logger.warning("rate limiter unavailable, request allowed: %s", type(exc).__name__)
            return self.get_response(request)
        setattr(request, REQUEST_ATTRIBUTE, state)
        if allowed:
            return self.get_response(request)
        return _too_many_page(request, state)


def _too_many_page(request, state: RateState):
    from django.template.loader import render_to_string

    from memoryhub.http_errors import error_response, wants_html_page

    if wants_html_page(request):
        from django.http import HttpResponse

        body = render_to_string("429.html", {"seconds": retry_after(state)}, request=request)
        response = HttpResponse(body, status=429)
    else:
        response = error_response("rate_limited", "Too many requests; retry after the time in Retry-After.", 429)
    response["Retry-After"] = str(retry_after(state))
    return response


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
