"""Row-level security context: which tenant a database session may see, and who may see all.

Every bank-owned table carries two PostgreSQL policies (``beliefs/migrations/_rls.py``):

- ``tenant_isolation`` shows a row only when its ``tenant_id`` equals ``memoryhub_tenant()``:
  the tenant named by the ``app.tenant_id`` setting, **if** ``app.tenant_token`` carries
  that tenant's HMAC under a key only the maintenance role can read. A session that sets
  the tenant without the token, or forges it, sees nothing;
- ``maintenance_access`` shows every row, to the maintenance role alone (the role that
  ran the migrations and owns the tables).

Requests and Celery tasks run as the request role, which owns nothing and cannot become
the maintenance role, so no SQL reached through request code can widen what it sees.

- Requests: API views and dashboard pages run in ``request_scope()``, one transaction with a
  transaction-local tenant (restored in ``finally`` when nested in a caller's transaction).
- Tasks and other code outside a request: ``tenant_scope(tenant_id)``; a Celery
  ``task_prerun`` hook clears whatever a crashed task might have left.
- ``rls_bypass()`` is the greppable escape hatch for maintenance code (beat sweeps across
  tenants, the admin site, metrics): ORM queries inside it go to the maintenance
  connection (the ``maintenance`` database alias). Raw ``connection.cursor()`` SQL does not.

Tests and benchmarks connect as the maintenance role (``MEMORYHUB_DB_CONNECT_AS=maintenance``)
so their own code can read every table; inside a request or ``tenant_scope`` the session
drops to the request role (``SET LOCAL ROLE``), exactly as the request role's own sessions run.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from contextlib import contextmanager
from contextvars import ContextVar

import psycopg
from django.conf import settings
from django.db import connection, connections, transaction

# How many atomic blocks were open when the request's own transaction began (1 when it is the outermost).
REQUEST_TRANSACTION_DEPTH: ContextVar[int] = ContextVar("memoryhub_request_transaction_depth", default=0)
TENANT_SETTING = "app.tenant_id"
TOKEN_SETTING = "app.tenant_token"
_MAINTENANCE: ContextVar[bool] = ContextVar("memoryhub_maintenance", default=False)
_key_lock = threading.Lock()
_keys: dict[tuple, bytes] = {}


def request_role() -> str:
    return settings.DATABASE_ROLES["request"]["USER"]


def maintenance_alias() -> str:
    """The database alias of the maintenance role: ``maintenance``, or ``default`` when that already is it."""
    return "maintenance" if "maintenance" in settings.DATABASES else "default"


@contextmanager
def maintenance_session():
    """A connection of its own as the maintenance role, in autocommit: outside every transaction of the caller
    (needed by statements that may not run in one, such as ``CREATE INDEX CONCURRENTLY``)."""
    maintenance = connections[maintenance_alias()]
    params = maintenance.get_connection_params()
    params = {k: v for k, v in params.items() if k not in {"cursor_factory", "context", "prepare_threshold"}}
    with maintenance.wrap_database_errors:  # an unreachable server is Django's OperationalError (503)
        with psycopg.connect(**params, autocommit=True) as conn:
            yield conn


def _signing_key() -> bytes:
    """The database's tenant-token key, read once per process and database through a maintenance session."""
    params = connections[maintenance_alias()].get_connection_params()
    cache_key = (params.get("host"), params.get("port"), params.get("dbname"))
    with _key_lock:
        if cache_key not in _keys:
            with maintenance_session() as conn:
                row = conn.execute("SELECT secret FROM memoryhub_private.tenant_key WHERE id = 1").fetchone()
            _keys[cache_key] = bytes(row[0])
        return _keys[cache_key]


def tenant_token(tenant_id: int) -> str:
    """The proof that lets a session act for ``tenant_id`` (HMAC-SHA256, checked by ``memoryhub_tenant()``)."""
    return hmac.new(_signing_key(), f"memoryhub-tenant:{int(tenant_id)}".encode(), hashlib.sha256).hexdigest()


def _server_cursor():
    """A Django cursor with server-side parameters: the token never appears in query text (pg_stat_activity)."""
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        raw = psycopg.Cursor(connection.connection)
    return connection.make_debug_cursor(raw) if connection.queries_logged else connection.make_cursor(raw)


_SCOPE_SQL = (
    "WITH previous AS MATERIALIZED (SELECT current_setting('role') AS role, "
    "coalesce(current_setting('app.tenant_id', true), '') AS tenant, "
    "coalesce(current_setting('app.tenant_token', true), '') AS token) "
    "SELECT role, tenant, token, set_config('role', %s, %s), set_config('app.tenant_id', %s, %s), "
    "set_config('app.tenant_token', %s, %s) FROM previous"
)


def _apply(role: str, tenant: str, token: str, *, local: bool) -> tuple[str, str, str]:
    with _server_cursor() as cursor:
        cursor.execute(_SCOPE_SQL, [role, local, tenant, local, token, local])
        previous = cursor.fetchone()
    return previous[0], previous[1], previous[2]


def set_request_tenant(tenant_id: int) -> tuple[str, str, str]:
    """Scope the current transaction to one tenant, as the request role; returns the values to restore."""
    return _apply(request_role(), str(int(tenant_id)), tenant_token(tenant_id), local=True)


def set_session_tenant(tenant_id: int) -> None:
    """Scope the whole database session (not one transaction) to one tenant, as the request role.

    For connections that serve one kind of work and call this before every use, such as
    recall's channel threads: it saves the BEGIN and COMMIT a transaction-local scope needs
    around every read. The values hold until the next call or the end of the connection.
    """
    _apply(request_role(), str(int(tenant_id)), tenant_token(tenant_id), local=False)


def restore_request_tenant(previous: tuple[str, str, str]) -> None:
    _apply(*previous, local=True)


class RequestScope:
    """The tenant one request runs as; see :func:`request_scope`."""

    def __init__(self):
        self._previous: tuple[str, str, str] | None = None

    def set_tenant(self, tenant_id: int) -> None:
        """From here on the request sees (and may write) only ``tenant_id``'s rows."""
        previous = set_request_tenant(tenant_id)
        if self._previous is None:
            self._previous = previous


@contextmanager
def request_scope(tenant_id: int | None = None):
    """One request in one transaction, scoped to a tenant for row-level security: the API base views and the
    dashboard pages both run their handlers inside it.

    Pages know the tenant before the handler runs (``tenant_id``); API views learn it once
    DRF has authenticated the caller and call ``scope.set_tenant``. The settings are
    transaction-local, so nothing leaks to the next request on a reused connection; a
    request nested in a caller's transaction (tests, in-process calls) gives the caller its
    own values back when it ends.
    """
    with transaction.atomic():
        depth = REQUEST_TRANSACTION_DEPTH.set(len(connection.atomic_blocks))
        scope = RequestScope()
        try:
            if tenant_id is not None:
                scope.set_tenant(tenant_id)
            yield scope
        finally:
            REQUEST_TRANSACTION_DEPTH.reset(depth)
            nested = len(connection.atomic_blocks) > 1
            if nested and scope._previous is not None and not connection.needs_rollback:
                restore_request_tenant(scope._previous)


@contextmanager
def tenant_scope(tenant_id: int):
    """Scope this database session to one tenant, as the request role, until the block ends.

    Inside a transaction the change is transaction-local (it cannot outlive a rollback or
    leak past the commit); outside one it holds for the session until the block ends.
    """
    local = connection.in_atomic_block
    token = _MAINTENANCE.set(False)
    previous = _apply(request_role(), str(int(tenant_id)), tenant_token(tenant_id), local=local)
    try:
        yield
    finally:
        _MAINTENANCE.reset(token)
        if not (local and connection.needs_rollback):
            _apply(*previous, local=local and connection.in_atomic_block)


@contextmanager
def rls_bypass():
    """Maintenance access across tenants until the block ends: ORM queries go to the maintenance role.

    With a separate maintenance connection the request session is untouched. When the
    default connection already is the maintenance role (tests, benchmarks) the session
    leaves any request-role scope for the block.
    """
    token = _MAINTENANCE.set(True)
    previous = None
    if maintenance_alias() == "default":
        local = connection.in_atomic_block
        previous = _apply("none", "", "", local=local), local
    try:
        yield
    finally:
        _MAINTENANCE.reset(token)
        if previous is not None and not (previous[1] and connection.needs_rollback):
            _apply(*previous[0], local=previous[1] and connection.in_atomic_block)


def clear_session_scope(**_kwargs) -> None:
    """Reset role and tenant to the session's start-up values (run before every Celery task)."""
    with connection.cursor() as cursor:
        cursor.execute(f"RESET ROLE; RESET {TENANT_SETTING}; RESET {TOKEN_SETTING}")


class MaintenanceRouter:
    """Sends ORM queries made inside ``rls_bypass()`` to the maintenance connection."""

    def db_for_read(self, model, **hints):
        return maintenance_alias() if _MAINTENANCE.get() else None

    def db_for_write(self, model, **hints):
        return maintenance_alias() if _MAINTENANCE.get() else None

    def allow_relation(self, obj1, obj2, **hints):
        return True  # both aliases are the same database


class AdminRowLevelBypassMiddleware:
    """The Django admin is an operator's tool across tenants: staff requests under /admin/ use the maintenance role."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if request.path.startswith("/admin/") and user is not None and user.is_active and user.is_staff:
            with rls_bypass():
                return self.get_response(request)
        return self.get_response(request)
