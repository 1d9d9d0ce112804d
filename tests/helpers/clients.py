"""Clients against the real service, in process: httpx's WSGI transport into Django's WSGI handler.

The requests run in the test's thread and database transaction, like Django's test
client, through every layer a deployed server has (middleware, auth, scoping, RLS).
"""

from __future__ import annotations

import httpx
from asgiref.sync import sync_to_async


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
