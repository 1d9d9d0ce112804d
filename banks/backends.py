"""Signing in with a user name and password, as the request role.

The request role may read accounts but write only when one last signed in
(``memoryhub.database.REQUEST_ROLE_TABLE_GRANTS``). Django rewrites a password's hash when
it checks one made with an older hasher or fewer iterations (after a Django upgrade, say);
this backend lets that one write go through the maintenance connection, for the account
whose password was just verified, so signing in keeps working.
"""

from __future__ import annotations

from django.contrib.auth.backends import ModelBackend

from memoryhub.tenancy import rls_bypass


class PasswordBackend(ModelBackend):
    """Django's ``ModelBackend``; the account is read, and an upgraded hash saved, by the maintenance role."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        with rls_bypass():
            return super().authenticate(request, username=username, password=password, **kwargs)
