"""How long a browser session lasts, and what a person must do before using it.

``SessionPolicyMiddleware`` runs after ``AuthenticationMiddleware`` on every request of a
signed-in person:

- **Idle expiry**: a session unused for ``MEMORYHUB_SESSION_IDLE_MINUTES`` (default 120) ends;
  the time of last use is written at most once a minute.
- **Absolute expiry**: a session ends ``MEMORYHUB_SESSION_MAX_HOURS`` (default 12) after
  sign-in however busy it is (``SESSION_COOKIE_AGE`` is the same bound for the cookie).
- **First password**: someone who signed in with a password another person generated for them
  (``banks.services.accounts.first_password_issue``) is sent to the password page, and API calls
  with that session answer 403 ``password_change_required``, until they chose their own.

An ended session is flushed and the request goes on signed out: pages send the person to
sign in again, API calls answer 401/403 as for anyone without a session.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.contrib.auth import logout
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.shortcuts import redirect
from django.urls import reverse

from memoryhub.http_errors import error_response

SIGNED_IN_AT = "memoryhub_signed_in_at"
SEEN_AT = "memoryhub_seen_at"
MUST_CHANGE_PASSWORD = "memoryhub_must_change_password"
SEEN_RESOLUTION = 60  # seconds: how stale the last-use time may get before it is written again


@receiver(user_logged_in)
def _on_sign_in(sender, request, user, **kwargs):
    from banks.services.accounts import password_change_required

    if request is None or not hasattr(request, "session"):
        return
    now = int(time.time())
    request.session[SIGNED_IN_AT] = now
    request.session[SEEN_AT] = now
    if password_change_required(user=user):
        request.session[MUST_CHANGE_PASSWORD] = True


def _allowed_while_password_must_change(path: str) -> bool:
    allowed = (reverse("password_change"), reverse("logout"), reverse("login"), "/static/")
    return path.startswith(allowed)


class SessionPolicyMiddleware:
    """Ends idle and too-old sessions; holds a person with a first password on the password page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return self.get_response(request)
        session = request.session
        now = int(time.time())
        signed_in_at = session.get(SIGNED_IN_AT)
        seen_at = session.get(SEEN_AT)
        if signed_in_at is None:  # a session from before these limits: they start counting now
            session[SIGNED_IN_AT] = signed_in_at = now
        if seen_at is None:
            session[SEEN_AT] = seen_at = now
        if now - signed_in_at > settings.SESSION_COOKIE_AGE or now - seen_at > settings.SESSION_IDLE_SECONDS:
            logout(request)
            return self.get_response(request)
        if now - seen_at >= SEEN_RESOLUTION:
            session[SEEN_AT] = now
        if session.get(MUST_CHANGE_PASSWORD) and not _allowed_while_password_must_change(request.path_info):
            if request.path_info.startswith("/api/"):
                return error_response(
                    "password_change_required", "Choose your own password on the password page first.", 403
                )
            return redirect(f"{reverse('password_change')}?first=1")
        return self.get_response(request)


def password_changed(request) -> None:
    """The person chose their own password: the session may be used normally."""
    request.session.pop(MUST_CHANGE_PASSWORD, None)
