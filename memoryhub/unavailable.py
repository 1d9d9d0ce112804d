"""A dependency that is down answers 503 with the JSON error format, quickly, never a 500.

When PostgreSQL is restarting or unreachable, every request that needs it gets
``503 {"code": "database_unavailable", ...}`` with ``Retry-After``; nothing half-done is
committed (the request's transaction never reaches COMMIT). Connections fail fast: the
embedded server's socket refuses at once and ``connect_timeout`` bounds a hung server.
A broker that is down does not fail requests at all: enqueueing is skipped and the job
rows in PostgreSQL are re-queued by the beat sweeps (``memoryhub.queues``).
"""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError, connection
from django.http import JsonResponse

logger = logging.getLogger(__name__)

DATABASE_ERRORS = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 5
DATABASE_UNAVAILABLE = {
    "code": "database_unavailable",
    "detail": "The database is unavailable right now; nothing was changed. Retry shortly.",
    "extra": {},
}


def is_dependency_error(exc: BaseException | None) -> bool:
    return isinstance(exc, DATABASE_ERRORS)


def dependency_error_response(exc: BaseException | None) -> JsonResponse | None:
    """The 503 answer for a dependency failure, or None when ``exc`` is something else."""
    if not is_dependency_error(exc):
        return None
    logger.warning("database unavailable: %s", type(exc).__name__)
    # The broken connection must not serve the next request of this thread.
    connection.close_if_unusable_or_obsolete()
    response = JsonResponse(DATABASE_UNAVAILABLE, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DependencyUnavailableMiddleware:
    """Turns a database failure anywhere in a view (including its COMMIT) into the 503 answer."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        return dependency_error_response(exception)


def server_error(request, *args, **kwargs):
    """``handler500``: JSON, and 503 when the cause was a dependency being down."""
    import sys

    response = dependency_error_response(sys.exc_info()[1])
    if response is not None:
        return response
    return JsonResponse(
        {"code": "server_error", "detail": "An unexpected error occurred; it was logged.", "extra": {}}, status=500
    )
