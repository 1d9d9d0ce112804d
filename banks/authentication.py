"""``Authorization: Bearer <api key>`` for agents.

A bearer that fails to authenticate is a 401, and it counts against its client address's
``auth`` window (``banks.throttling``): once an address sent
``MEMORYHUB_AUTH_FAILURES_PER_MINUTE`` failing keys in a minute, its bearer requests answer
429 ``rate_limited`` before any key is looked up, until the window has room again.
"""

from __future__ import annotations

import logging

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed, Throttled

from banks import throttling
from banks.models import ApiKey
from banks.services.api_keys import api_key_authenticate
from memoryhub.proxy import client_ip

logger = logging.getLogger(__name__)


class ApiKeyPrincipal:
    """The ``request.user`` of an API-key request: authenticated, but not a person."""

    is_authenticated = True
    is_anonymous = False
    is_staff = False
    is_superuser = False
    pk = None
    id = None

    def __init__(self, api_key: ApiKey):
        self.api_key = api_key

    def __str__(self) -> str:
        return f"api-key:{self.api_key.prefix}"

    def has_perm(self, perm, obj=None) -> bool:
        return False


class ApiKeyAuthentication(BaseAuthentication):
    """Authenticates ``Bearer mh_…`` keys; other schemes fall through to session auth."""

    def authenticate(self, request):
        header = get_authorization_header(request).split()
        if not header or header[0].lower() != b"bearer":
            return None
        address = client_ip(request)
        wait = _failure_wait(address)
        if wait:
            raise Throttled(wait=wait, detail="Too many requests with an invalid API key from this address.")
        if len(header) != 2:
            _count_failure(address)
            raise AuthenticationFailed("Malformed Authorization header: expected 'Bearer <api key>'.")
        try:
            raw_key = header[1].decode("ascii")
        except UnicodeDecodeError as exc:
            _count_failure(address)
            raise AuthenticationFailed("Invalid API key.") from exc
        api_key = api_key_authenticate(raw_key=raw_key)
        if api_key is None:
            _count_failure(address)
            raise AuthenticationFailed("Invalid or revoked API key.")
        return ApiKeyPrincipal(api_key), api_key

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="memoryhub"'


def _failure_wait(address: str) -> int:
    try:
        return throttling.auth_failure_wait(address=address)
    except Exception as exc:  # an unreachable limiter never refuses a request
        logger.warning("rate limiter unavailable, request allowed: %s", type(exc).__name__)
        return 0


def _count_failure(address: str) -> None:
    try:
        throttling.auth_failure_hit(address=address)
    except Exception as exc:
        logger.warning("rate limiter unavailable, failure not counted: %s", type(exc).__name__)
