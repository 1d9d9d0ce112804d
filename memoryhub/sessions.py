"""Browser sessions, stored where the request role cannot read them (``SESSION_ENGINE``).

A session's key is the value of the visitor's session cookie: whoever reads the
``django_session`` table can sign in as anyone signed in. The request role holds no
privilege on that table (``memoryhub.database.REQUEST_ROLE_TABLE_GRANTS``); this store
reads and writes it through the maintenance connection (``rls_bypass``), so SQL that
request code reaches cannot list sessions. Everything else is Django's database store:
the same rows, CSRF and sign-in work as before.
"""

from __future__ import annotations

from django.contrib.sessions.backends import db

from memoryhub.tenancy import rls_bypass


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        with rls_bypass():
            return super()._get_session_from_db()

    def exists(self, session_key):
        with rls_bypass():
            return super().exists(session_key)

    def save(self, must_create=False):
        with rls_bypass():
            return super().save(must_create=must_create)

    def delete(self, session_key=None):
        with rls_bypass():
            return super().delete(session_key)

    @classmethod
    def clear_expired(cls):
        with rls_bypass():
            return super().clear_expired()
