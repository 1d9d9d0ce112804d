"""``MemoryHub`` (sync) and ``AsyncMemoryHub`` (async): one object per server and key.

    from memoryhub_client import MemoryHub

    hub = MemoryHub("http://127.0.0.1:8000", api_key="mh_...")
    hub.retain("ops", ["Alert DiskLatencyHigh fired on db-01 during the backup."])
    answer = hub.recall("ops", "is disk latency on db-01 known?", budget_tokens=300)

``base_url`` and ``api_key`` default to ``MEMORYHUB_URL`` and ``MEMORYHUB_API_KEY``.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any

import httpx

from memoryhub_client import _resources as r
from memoryhub_client import models as m
from memoryhub_client._portability import AsyncPortability, Portability
from memoryhub_client._transport import AsyncTransport, RetryPolicy, SyncTransport
from memoryhub_client.errors import MemoryHubError

DEFAULT_URL = "http://127.0.0.1:8000"
_TERMINAL = {"done", "failed"}


class RetainBatchFailed(MemoryHubError):
    """An asynchronous retain batch ended in ``failed`` (``extra["batch"]`` holds it)."""

    code = "retain_batch_failed"


class RetainBatchTimeout(MemoryHubError):
    code = "retain_batch_timeout"


def _settings(base_url: str | None, api_key: str | None, headers: dict | None) -> tuple[str, dict]:
    base_url = (base_url or os.environ.get("MEMORYHUB_URL") or DEFAULT_URL).rstrip("/")
    api_key = api_key if api_key is not None else os.environ.get("MEMORYHUB_API_KEY")
    merged = {"User-Agent": "memoryhub-client/0.1", **(headers or {})}
    if api_key:
        merged["Authorization"] = f"Bearer {api_key}"
    return base_url, merged


class _Base:
    def _mount(self) -> None:
        self.banks = r.Banks(self)
        self.episodes = r.Episodes(self)
        self.facts = r.Facts(self)
        self.beliefs = r.Beliefs(self)
        self.mental_models = r.MentalModels(self)
        self.review_items = r.ReviewItems(self)
        self.erasure_requests = r.ErasureRequests(self)
        self.api_keys = r.ApiKeys(self)
        self.retain_batches = r.RetainBatches(self)
        self.background = r.Background(self)
        self.audit_events = r.AuditEvents(self)
        self._core = r.Core(self)

    def recall(self, bank: str, query: str, *, budget_tokens: int, **options) -> m.Recall:
        """A cited slice of memory that never exceeds ``budget_tokens`` (options: filters, as_of, render…)."""
        return self._core.recall(bank, query, budget_tokens=budget_tokens, **options)

    def reflect(self, bank: str, question: str, *, budget_tokens: int) -> m.Reflect:
        return self._core.reflect(bank, question, budget_tokens=budget_tokens)


class MemoryHub(_Base):
    """Synchronous client. Safe to share between threads (httpx.Client is)."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        max_retry_wait: float = 60.0,
        headers: dict[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        base_url, merged = _settings(base_url, api_key, headers)
        self.base_url = base_url
        self._http = httpx.Client(base_url=base_url, headers=merged, timeout=timeout, transport=transport)
        retry = RetryPolicy(max_retries=max_retries, backoff_base=backoff_base, max_retry_wait=max_retry_wait)
        self._transport = SyncTransport(self._http, retry, sleep=sleep)
        self._sleep = sleep
        self._mount()
        self.portability = Portability(self)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> MemoryHub:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def retain(
        self,
        bank: str,
        items: Iterable[m.RetainItemRequest | dict | str],
        *,
        idempotency_key: str | None = None,
        run_async: bool = False,
        wait: bool = False,
        timeout: float = 120.0,
        poll_interval: float = 0.5,
    ) -> m.Retain | m.RetainBatch:
        """Store ``items``; recallable when the call returns (synchronous mode).

        Every call carries an ``Idempotency-Key`` (a fresh one unless given), so retries
        never store twice. ``run_async=True`` answers with a batch to poll; ``wait=True``
        polls it until it is done (``RetainBatchFailed`` / ``RetainBatchTimeout`` otherwise).
        """
        call = self._core.retain_call(bank, items, idempotency_key=idempotency_key, run_async=run_async)
        result = self._transport.execute(call)
        if run_async and wait:
            return self.wait_for_batch(bank, result.batch_id, timeout=timeout, poll_interval=poll_interval)
        return result

    def wait_for_batch(
        self, bank: str, batch_id: int, *, timeout: float = 120.0, poll_interval: float = 0.5
    ) -> m.RetainBatch:
        deadline = time.monotonic() + timeout
        while True:
            batch = self.retain_batches.get(bank, batch_id)
            if batch.status in _TERMINAL:
                if batch.status == "failed":
                    raise RetainBatchFailed(batch.error or "retain batch failed", extra={"batch": batch.model_dump()})
                return batch
            if time.monotonic() >= deadline:
                raise RetainBatchTimeout(f"batch {batch_id} is still {batch.status} after {timeout:.0f}s")
            self._sleep(poll_interval)

    def paginate(self, method: Callable[..., Any], *args, page_size: int = 100, **kwargs) -> Iterator[Any]:
        """Every row of a list method, page after page: ``hub.paginate(hub.beliefs.list, "ops")``."""
        offset = 0
        while True:
            page = method(*args, limit=page_size, offset=offset, **kwargs)
            yield from page.results
            offset += len(page.results)
            if not page.next or not page.results:
                return


# Sync/async twin of ``MemoryHub``: same code but for ``await`` (as in httpx, openai-python); kept apart on purpose.
class AsyncMemoryHub(_Base):
    """Asynchronous client: the same resources and methods, awaited."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        max_retry_wait: float = 60.0,
        headers: dict[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Any] | None = None,
    ):
        import asyncio

        base_url, merged = _settings(base_url, api_key, headers)
        self.base_url = base_url
        self._http = httpx.AsyncClient(base_url=base_url, headers=merged, timeout=timeout, transport=transport)
        retry = RetryPolicy(max_retries=max_retries, backoff_base=backoff_base, max_retry_wait=max_retry_wait)
        self._sleep = sleep or asyncio.sleep
        self._transport = AsyncTransport(self._http, retry, sleep=self._sleep)
        self._mount()
        self.portability = AsyncPortability(self)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncMemoryHub:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def retain(
        self,
        bank: str,
        items: Iterable[m.RetainItemRequest | dict | str],
        *,
        idempotency_key: str | None = None,
        run_async: bool = False,
        wait: bool = False,
        timeout: float = 120.0,
        poll_interval: float = 0.5,
    ) -> m.Retain | m.RetainBatch:
        """As ``MemoryHub.retain``."""
        call = self._core.retain_call(bank, items, idempotency_key=idempotency_key, run_async=run_async)
        result = await self._transport.execute(call)
        if run_async and wait:
            return await self.wait_for_batch(bank, result.batch_id, timeout=timeout, poll_interval=poll_interval)
        return result

    async def wait_for_batch(
        self, bank: str, batch_id: int, *, timeout: float = 120.0, poll_interval: float = 0.5
    ) -> m.RetainBatch:
        deadline = time.monotonic() + timeout
        while True:
            batch = await self.retain_batches.get(bank, batch_id)
            if batch.status in _TERMINAL:
                if batch.status == "failed":
                    raise RetainBatchFailed(batch.error or "retain batch failed", extra={"batch": batch.model_dump()})
                return batch
            if time.monotonic() >= deadline:
                raise RetainBatchTimeout(f"batch {batch_id} is still {batch.status} after {timeout:.0f}s")
            await self._sleep(poll_interval)

    async def paginate(self, method: Callable[..., Any], *args, page_size: int = 100, **kwargs) -> AsyncIterator[Any]:
        offset = 0
        while True:
            page = await method(*args, limit=page_size, offset=offset, **kwargs)
            for row in page.results:
                yield row
            offset += len(page.results)
            if not page.next or not page.results:
                return
