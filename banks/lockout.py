"""The answer to a sign-in refused for too many failures (django-axes calls ``lockout_response``).

Both sign-in forms (``/accounts/login/`` and ``/admin/login/``) count failures per client
address and per user name (``AXES_LOCKOUT_PARAMETERS``). Once either reaches
``MEMORYHUB_LOGIN_FAILURE_LIMIT``, every sign-in from that address or as that user name —
with the right password too — answers 429 with ``Retry-After`` until the cool-off time
(``MEMORYHUB_LOGIN_COOLOFF_MINUTES``) passes without another failure. A browser gets a page
that says so; any other caller the JSON error ``login_locked``.
"""

from __future__ import annotations

import math

from axes.helpers import get_cool_off
from django.shortcuts import render

from memoryhub.http_errors import error_response

LOCKED_DETAIL = "Too many failed sign-ins from this address or for this user name. Try again later."


def lockout_response(request, original_response=None, credentials=None):
    """429: an HTML page for a browser, the JSON error ``login_locked`` for anything else."""
    cool_off = get_cool_off(request)
    seconds = max(1, math.ceil(cool_off.total_seconds())) if cool_off else 900
    if "text/html" in request.headers.get("Accept", ""):
        response = render(request, "registration/locked_out.html", {"minutes": math.ceil(seconds / 60)}, status=429)
    else:
        response = error_response("login_locked", LOCKED_DETAIL, 429)
    response["Retry-After"] = str(seconds)
    response["Cache-Control"] = "no-store"
    return response
