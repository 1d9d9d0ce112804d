"""The embedded PostgreSQL: data survives a restart; a database without pgvector is refused clearly."""

import tempfile
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from memoryhub.database import (
    APP_DATABASE,
    MAINTENANCE_ROLE,
    REQUEST_ROLE,
    PgvectorMissing,
    ensure_embedded_server,
    require_pgvector,
    stop_embedded_server,
)


def test_embedded_data_survives_a_server_restart():
    # A short path: the server's Unix socket lives in the data directory.
    with tempfile.TemporaryDirectory(prefix="mh", dir="/tmp") as tmp:
        data_dir = Path(tmp)
        socket_dir = ensure_embedded_server(data_dir)
        try:
            connect = {"host": str(socket_dir), "dbname": APP_DATABASE, "autocommit": True}
            with psycopg.connect(**connect, user=REQUEST_ROLE) as conn:
                assert conn.execute(
                    "SELECT rolsuper, rolbypassrls, rolcreatedb FROM pg_roles WHERE rolname = current_user"
                ).fetchone() == (False, False, False)
                with pytest.raises(psycopg.errors.InsufficientPrivilege):  # the request role owns nothing
                    conn.execute("CREATE TABLE intruder (note text)")
            with psycopg.connect(**connect, user=MAINTENANCE_ROLE) as conn:
                assert conn.execute(
                    "SELECT rolsuper, rolbypassrls, pg_get_userbyid(datdba) FROM pg_roles, pg_database "
                    "WHERE rolname = current_user AND datname = current_database()"
                ).fetchone() == (False, False, MAINTENANCE_ROLE)
                conn.execute("CREATE TABLE survivor (note text)")
                conn.execute("INSERT INTO survivor VALUES ('still here')")
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            assert stop_embedded_server(data_dir) is True
            assert stop_embedded_server(data_dir) is False

            socket_dir = ensure_embedded_server(data_dir)
            with psycopg.connect(host=str(socket_dir), dbname=APP_DATABASE, user=MAINTENANCE_ROLE) as conn:
                assert conn.execute("SELECT note FROM survivor").fetchall() == [("still here",)]
                version = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0]
                assert tuple(int(part) for part in version.split(".")[:2]) >= (0, 8)
        finally:
            stop_embedded_server(data_dir)


def test_database_without_pgvector_is_refused_with_a_fix(db):
    assert require_pgvector(connection)
    params = connection.get_connection_params()
    with psycopg.connect(host=params["host"], dbname=params["dbname"], user=params["user"], autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS memoryhub_no_vector")
        admin.execute("CREATE DATABASE memoryhub_no_vector TEMPLATE template0")
    try:
        with psycopg.connect(host=params["host"], dbname="memoryhub_no_vector", user=params["user"]) as plain:
            with pytest.raises(PgvectorMissing, match="not enabled in database 'memoryhub_no_vector'"):
                require_pgvector(plain)
    finally:
        with psycopg.connect(
            host=params["host"], dbname=params["dbname"], user=params["user"], autocommit=True
        ) as admin:
            admin.execute("DROP DATABASE memoryhub_no_vector")


def test_the_embedded_server_starts_with_memoryhub_s_settings_and_an_operator_s_override(monkeypatch):
    from memoryhub.database import SETTINGS_FILE, embedded_server_settings

    monkeypatch.setenv("MEMORYHUB_PG_SHARED_BUFFERS", "192MB")
    assert embedded_server_settings() == {
        "shared_buffers": "192MB",
        "checkpoint_timeout": "15min",
        "max_wal_size": "2GB",
    }
    with tempfile.TemporaryDirectory(prefix="mh", dir="/tmp") as tmp:
        data_dir = Path(tmp)
        socket_dir = ensure_embedded_server(data_dir)
        try:
            connect = {"host": str(socket_dir), "dbname": APP_DATABASE, "user": MAINTENANCE_ROLE}
            with psycopg.connect(**connect) as conn:  # the very first start (a new directory) already has it
                assert conn.execute("SHOW shared_buffers").fetchone() == ("192MB",)
                assert conn.execute("SHOW checkpoint_timeout").fetchone() == ("15min",)
                assert conn.execute("SHOW max_wal_size").fetchone() == ("2GB",)
            pgdata = data_dir / "pg"
            assert (pgdata / SETTINGS_FILE).read_text() == (
                "shared_buffers = '192MB'\ncheckpoint_timeout = '15min'\nmax_wal_size = '2GB'\n"
            )
            # A changed setting is written for the next start; the running server keeps its own until then.
            monkeypatch.setenv("MEMORYHUB_PG_SHARED_BUFFERS", "160MB")
            stop_embedded_server(data_dir)
            socket_dir = ensure_embedded_server(data_dir)
            with psycopg.connect(**{**connect, "host": str(socket_dir)}) as conn:
                assert conn.execute("SHOW shared_buffers").fetchone() == ("160MB",)
            conf = (pgdata / "postgresql.conf").read_text()
            assert conf.count(f"include_if_exists = '{SETTINGS_FILE}'") == 1  # included once, however many starts
        finally:
            stop_embedded_server(data_dir)
    monkeypatch.delenv("MEMORYHUB_PG_SHARED_BUFFERS")
    default = int(embedded_server_settings()["shared_buffers"].removesuffix("MB"))
    assert 128 <= default <= 2048
