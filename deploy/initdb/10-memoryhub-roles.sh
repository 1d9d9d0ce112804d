#!/bin/sh
# First start of the database container: the two MemoryHub roles, the database and pgvector.
# The maintenance role owns the schema and runs migrations; the request role serves requests and tasks.
# Passwords come from the environment (never from this file).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v maintenance_password="$MEMORYHUB_MAINTENANCE_DB_PASSWORD" -v request_password="$MEMORYHUB_DB_PASSWORD" <<'SQL'
CREATE ROLE memoryhub_maintenance LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD :'maintenance_password';
CREATE ROLE memoryhub LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD :'request_password';
CREATE DATABASE memoryhub OWNER memoryhub_maintenance;
\c memoryhub
CREATE EXTENSION IF NOT EXISTS vector;
SQL
