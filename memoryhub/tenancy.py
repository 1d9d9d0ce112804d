"""Row-level security context: which tenant the database session may see.

Every bank-owned table has a PostgreSQL policy (migration ``beliefs.0007``) that shows a
row only when its ``tenant_id`` equals the ``app.tenant_id`` setting, or when
``app.rls_bypass`` is ``on`` (maintenance: migrations, the admin site, cross-bank beat
sweeps, metrics). A query that forgets its bank filter therefore still returns nothing
foreign, and a session with no setting returns nothing at all.

- API requests: ``BankScopedAPIView`` sets both values with ``set_config(..., true)``
  (transaction-local) inside the request transaction and restores them in ``finally``.
- Tasks and other code outside a request: ``tenant_scope(tenant_id)`` sets them for
  the session and restores the previous values on exit; a Celery ``task_prerun`` hook
  clears whatever a crashed task might have left.
- ``rls_bypass()`` is the greppable escape hatch for maintenance code.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connection

# How many atomic blocks were open when the request's own transaction began (1 when it is the outermost).
REQUEST_TRANSACTION_DEPTH: ContextVar[int] = ContextVar("memoryhub_request_transaction_depth", default=0)
TENANT_SETTING = "app.tenant_id"
BYPASS_SETTING = "app.rls_bypass"


def _current() -> tuple[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(current_setting(%s, true), ''), coalesce(current_setting(%s, true), '')",
            [TENANT_SETTING, BYPASS_SETTING],
        )
        return cursor.fetchone()


def _set(tenant: str, bypass: str, *, local: bool) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config(%s, %s, %s), set_config(%s, %s, %s)",
            [TENANT_SETTING, tenant, local, BYPASS_SETTING, bypass, local],
        )


def set_request_tenant(tenant_id: int) -> tuple[str, str]:
    """Scope the current transaction to one tenant (RLS enforced); returns the values to restore.

    One round trip: the previous values are read in a materialised CTE before they change.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH previous AS MATERIALIZED (SELECT coalesce(current_setting(%s, true), '') AS tenant, "
            "coalesce(current_setting(%s, true), '') AS bypass) "
            "SELECT tenant, bypass, set_config(%s, %s, true), set_config(%s, 'off', true) FROM previous",
            [TENANT_SETTING, BYPASS_SETTING, TENANT_SETTING, str(int(tenant_id)), BYPASS_SETTING],
        )
        tenant, bypass, _, _ = cursor.fetchone()
    return tenant, bypass


def restore_request_tenant(previous: tuple[str, str]) -> None:
    _set(previous[0], previous[1], local=True)


@contextmanager
def tenant_scope(tenant_id: int):
    """Scope this database session to one tenant until the block ends."""
    previous = _current()
    _set(str(int(tenant_id)), "off", local=False)
    try:
        yield
    finally:
        _set(previous[0], previous[1], local=False)


@contextmanager
def rls_bypass():
    """Maintenance access across tenants for this session until the block ends."""
    previous = _current()
    _set(previous[0], "on", local=False)
    try:
        yield
    finally:
        _set(previous[0], previous[1], local=False)


def clear_session_scope(**_kwargs) -> None:
    """Reset both settings to the session's start-up values (run before every Celery task)."""
    with connection.cursor() as cursor:
        cursor.execute(f"RESET {TENANT_SETTING}; RESET {BYPASS_SETTING}")


class AdminRowLevelBypassMiddleware:
    """The Django admin is an operator's tool across tenants: staff requests under /admin/ bypass RLS."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if request.path.startswith("/admin/") and user is not None and user.is_active and user.is_staff:
            with rls_bypass():
                return self.get_response(request)
        return self.get_response(request)
