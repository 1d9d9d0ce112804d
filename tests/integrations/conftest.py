"""Clients against the real service, in process: httpx's WSGI transport into Django's WSGI handler.

The requests run in the test's thread and database transaction, like Django's test
client, through every layer a deployed server has (middleware, auth, scoping, RLS).
"""

from __future__ import annotations

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from memoryhub_client import AsyncMemoryHub, MemoryHub


class AsyncWSGITransport(httpx.AsyncBaseTransport):
    """An async face on the WSGI transport for coroutines run with ``asgiref``'s ``async_to_sync``.

    Each request is handed back to the test's own thread (``thread_sensitive``), so Django
    serves it on the test's connection, inside the test's transaction.
    """

    def __init__(self, app):
        self._sync = httpx.WSGITransport(app=app)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        sync_request = httpx.Request(request.method, request.url, headers=request.headers, content=body)
        response = await sync_to_async(self._sync.handle_request, thread_sensitive=True)(sync_request)
        return httpx.Response(response.status_code, headers=response.headers, content=response.read())


@pytest.fixture
def wsgi_app(db):
    """Django's WSGI handler, without the per-request connection recycling that would end the test transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield WSGIHandler()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def hub_for(wsgi_app, sleeps):
    """``hub_for(raw_key, **options)``: a sync client for a key, recording its retry waits instead of sleeping."""
    clients = []

    def make(raw_key: str, **options) -> MemoryHub:
        hub = MemoryHub(
            "http://testserver",
            api_key=raw_key,
            transport=httpx.WSGITransport(app=wsgi_app),
            sleep=sleeps.append,
            **options,
        )
        clients.append(hub)
        return hub

    yield make
    for hub in clients:
        hub.close()


@pytest.fixture
def hub(hub_for, caller) -> MemoryHub:
    return hub_for(caller.raw_key)


@pytest.fixture
def async_hub(wsgi_app, caller, sleeps) -> AsyncMemoryHub:
    """Drive it with ``async_to_sync(coroutine)()`` (see ``AsyncWSGITransport``)."""

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    return AsyncMemoryHub(
        "http://testserver", api_key=caller.raw_key, transport=AsyncWSGITransport(wsgi_app), sleep=record
    )
