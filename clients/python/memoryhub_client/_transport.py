"""Sending one API call, with retries, for the sync and the async client.

Retry policy (the same for both):

- 429 and 503 are retried up to ``max_retries`` times. The wait is the server's
  ``Retry-After`` when it sends one; a ``Retry-After`` longer than ``max_retry_wait``
  is not shortened (that would only earn another 429): the error is raised at once.
  Without the header the wait is exponential backoff with full jitter
  (``backoff_base × 2^attempt``, capped at ``max_retry_wait``).
- Connection failures before the request reached the server are retried for every call;
  a broken connection or a read timeout only for calls that are safe to repeat
  (reads, deletes, and writes carrying an ``Idempotency-Key``).
- Any other error status raises the exception class registered for its ``code``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from memoryhub_client.errors import MemoryHubError, TransportError, error_from_response, parse_retry_after

RETRY_STATUSES = frozenset({429, 503})
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})


@dataclass(frozen=True)
class Call:
    """One API request and how to read its answer."""

    method: str
    path: str
    params: dict[str, Any] | None = None
    json: Any = None
    content: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    parse: Callable[[httpx.Response], Any] | None = None
    #: The server makes repeating this call harmless (e.g. imports match records by natural keys).
    safe_to_repeat: bool = False

    @property
    def repeatable(self) -> bool:
        return self.safe_to_repeat or self.method in _SAFE_METHODS or "Idempotency-Key" in self.headers


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3
    backoff_base: float = 0.5
    max_retry_wait: float = 60.0

    def delay(self, attempt: int, response: httpx.Response | None) -> float | None:
        """Seconds to wait before retry number ``attempt + 1``; None when it should not be retried."""
        if attempt >= self.max_retries:
            return None
        if response is not None:
            advised = parse_retry_after(response.headers.get("Retry-After"))
            if advised is not None:
                return advised if advised <= self.max_retry_wait else None
        return random.uniform(0, min(self.max_retry_wait, self.backoff_base * (2**attempt)))


def _clean_params(params: dict[str, Any] | None) -> dict[str, Any] | None:
    if not params:
        return None
    cleaned = {}
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif hasattr(value, "isoformat"):
            value = value.isoformat()
        cleaned[key] = value
    return cleaned


def _result(call: Call, response: httpx.Response) -> Any:
    if response.status_code >= 400:
        raise error_from_response(response)
    if call.parse is not None:
        return call.parse(response)
    if response.status_code == 204 or not response.content:
        return None
    return response.json()


def _request(client: httpx.Client | httpx.AsyncClient, call: Call) -> httpx.Request:
    return client.build_request(
        call.method,
        call.path,
        params=_clean_params(call.params),
        json=call.json if call.content is None else None,
        content=call.content,
        headers=call.headers or None,
    )


def _retryable_transport_error(exc: httpx.TransportError, call: Call) -> bool:
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
        return True  # the request never reached the server
    return call.repeatable


class SyncTransport:
    def __init__(self, http: httpx.Client, retry: RetryPolicy, sleep: Callable[[float], None] = time.sleep):
        self.http = http
        self.retry = retry
        self.sleep = sleep

    def execute(self, call: Call) -> Any:
        attempt = 0
        while True:
            try:
                response = self.http.send(_request(self.http, call))
            except httpx.TransportError as exc:
                wait = self.retry.delay(attempt, None) if _retryable_transport_error(exc, call) else None
                if wait is None:
                    raise TransportError(f"{type(exc).__name__}: {exc}") from exc
            else:
                if response.status_code not in RETRY_STATUSES:
                    return _result(call, response)
                wait = self.retry.delay(attempt, response)
                if wait is None:
                    return _result(call, response)
            self.sleep(wait)
            attempt += 1

    def stream_lines(self, call: Call):
        """Iterate the lines of a streamed answer (no retries once bytes have arrived)."""
        with self.http.stream(call.method, call.path, params=_clean_params(call.params), headers=call.headers) as r:
            if r.status_code >= 400:
                r.read()
                raise error_from_response(r)
            yield from r.iter_lines()


# Sync/async twin of ``SyncTransport``: same code but for ``await`` (as in httpx, openai-python); kept apart on purpose.
class AsyncTransport:
    def __init__(self, http: httpx.AsyncClient, retry: RetryPolicy, sleep: Callable[[float], Any] = asyncio.sleep):
        self.http = http
        self.retry = retry
        self.sleep = sleep

    async def execute(self, call: Call) -> Any:
        attempt = 0
        while True:
            try:
                response = await self.http.send(_request(self.http, call))
            except httpx.TransportError as exc:
                wait = self.retry.delay(attempt, None) if _retryable_transport_error(exc, call) else None
                if wait is None:
                    raise TransportError(f"{type(exc).__name__}: {exc}") from exc
            else:
                if response.status_code not in RETRY_STATUSES:
                    return _result(call, response)
                wait = self.retry.delay(attempt, response)
                if wait is None:
                    return _result(call, response)
            await self.sleep(wait)
            attempt += 1

    async def stream_lines(self, call: Call):
        async with self.http.stream(
            call.method, call.path, params=_clean_params(call.params), headers=call.headers
        ) as response:
            if response.status_code >= 400:
                await response.aread()
                raise error_from_response(response)
            async for line in response.aiter_lines():
                yield line


__all__ = ["AsyncTransport", "Call", "MemoryHubError", "RetryPolicy", "SyncTransport"]
