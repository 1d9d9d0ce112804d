"""``Authorization: Bearer <api key>`` for agents."""

from __future__ import annotations

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed

from banks.models import ApiKey
from banks.services.api_keys import api_key_authenticate


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
        if len(header) != 2:
            raise AuthenticationFailed("Malformed Authorization header: expected 'Bearer <api key>'.")
        try:
            raw_key = header[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise AuthenticationFailed("Invalid API key.") from exc
        api_key = api_key_authenticate(raw_key=raw_key)
        if api_key is None:
            raise AuthenticationFailed("Invalid or revoked API key.")
        return ApiKeyPrincipal(api_key), api_key

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="memoryhub"'
