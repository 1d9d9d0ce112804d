"""A request id for every HTTP request: taken from ``X-Request-ID`` or generated, echoed back, and
available to audit events through a context variable."""

from __future__ import annotations

import re
import uuid
from contextvars import ContextVar

_REQUEST_ID: ContextVar[str] = ContextVar("memoryhub_request_id", default="")
_SAFE = re.compile(r"^[A-Za-z0-9._\-]{1,64}$")


def current_request_id() -> str:
    return _REQUEST_ID.get()


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        supplied = request.headers.get("X-Request-ID", "")
        request_id = supplied if _SAFE.match(supplied) else uuid.uuid4().hex
        token = _REQUEST_ID.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            _REQUEST_ID.reset(token)
        response["X-Request-ID"] = request_id
        return response
