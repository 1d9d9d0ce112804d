"""Every answer outside the API views is the JSON error format too.

- ``RejectMalformedRequestMiddleware``: a path or query string holding NUL or other
  control characters, or one that is not valid UTF-8, is a 400 ``malformed_request``
  before anything reads it (PostgreSQL text cannot even hold NUL).
- ``not_found`` / ``bad_request`` / ``permission_denied``: Django's ``handler404``,
  ``handler400`` and ``handler403`` (an unknown path, ``..``, an id that is not a
  number) answer ``{"code", "detail", "extra"}``. Only a dashboard request (outside
  ``/api/``, from a signed-in person or a browser asking for HTML) gets the HTML page.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_to_bytes

from django.http import JsonResponse
from django.views import defaults

_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def error_response(code: str, detail: str, status: int, **headers) -> JsonResponse:
    response = JsonResponse({"code": code, "detail": detail, "extra": {}}, status=status)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def _malformed(raw: str) -> bool:
    data = unquote_to_bytes(raw)
    if _CONTROL.search(data):
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


class RejectMalformedRequestMiddleware:
    """400 for control characters or broken UTF-8 in the path or the query string."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        raw_path = request.META.get("RAW_URI") or request.get_full_path_info()
        path, _, query = raw_path.partition("?")
        if _malformed(path) or _malformed(query) or "\x00" in request.path_info:
            return error_response("malformed_request", "The URL holds control characters or is not valid UTF-8.", 400)
        return self.get_response(request)


def wants_html_page(request) -> bool:
    """A dashboard request: outside the API, from a signed-in person or a browser asking for HTML."""
    if request.path_info.startswith("/api/"):
        return False
    user = getattr(request, "user", None)
    signed_in = bool(user is not None and user.is_authenticated)
    return signed_in or "text/html" in request.headers.get("Accept", "")


def not_found(request, exception=None):
    if wants_html_page(request):
        return defaults.page_not_found(request, exception)
    return error_response("not_found", "No such route or object.", 404)


def bad_request(request, exception=None):
    if wants_html_page(request):
        return defaults.bad_request(request, exception)
    return error_response("malformed_request", "The request could not be understood.", 400)


def permission_denied(request, exception=None):
    if wants_html_page(request):
        return defaults.permission_denied(request, exception)
    return error_response("permission_denied", "You do not have permission to do this.", 403)
