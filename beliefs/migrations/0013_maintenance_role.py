"""Row-level security that the request role cannot switch off (see ``memoryhub.tenancy``).

Replaces the setting-based bypass (``app.rls_bypass``, which any session could set) on
every table with a ``tenant_isolation`` policy:

- ``memoryhub_private.tenant_key``: a random HMAC key in a schema only the maintenance
  role (the role running this migration, owner of every table) may read;
- ``memoryhub_tenant()``: the tenant named by ``app.tenant_id`` if ``app.tenant_token``
  is its HMAC under that key, else NULL (SECURITY DEFINER, so it can read the key);
- per table, ``tenant_isolation`` keyed on ``memoryhub_tenant()`` and
  ``maintenance_access`` for the maintenance role only.
"""

import hashlib
import secrets

from django.db import migrations

from beliefs.migrations._rls import LEGACY_CONDITION, policy_statements

BLOCK = hashlib.sha256().block_size

CREATE_KEY = """
CREATE SCHEMA memoryhub_private;
REVOKE ALL ON SCHEMA memoryhub_private FROM PUBLIC;
CREATE TABLE memoryhub_private.tenant_key (
    id integer PRIMARY KEY CHECK (id = 1),
    secret bytea NOT NULL,
    inner_pad bytea NOT NULL,
    outer_pad bytea NOT NULL
);
"""

CREATE_FUNCTION = """
CREATE FUNCTION public.memoryhub_tenant() RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE
        WHEN s.tenant ~ '^[0-9]{1,18}$'
         AND s.token = encode(sha256(k.outer_pad || sha256(k.inner_pad
                 || convert_to('memoryhub-tenant:' || s.tenant, 'UTF8'))), 'hex')
        THEN s.tenant::bigint
    END
    FROM (SELECT current_setting('app.tenant_id', true) AS tenant,
                 current_setting('app.tenant_token', true) AS token) AS s
    CROSS JOIN memoryhub_private.tenant_key AS k
    WHERE k.id = 1
$fn$;
"""


def _protected_tables(cursor) -> list[str]:
    cursor.execute(
        "SELECT tablename FROM pg_policies WHERE schemaname = 'public' AND policyname = 'tenant_isolation' "
        "ORDER BY tablename"
    )
    return [row[0] for row in cursor.fetchall()]


def create_key(apps, schema_editor):
    secret = secrets.token_bytes(32)
    padded = secret.ljust(BLOCK, b"\0")
    inner = bytes(byte ^ 0x36 for byte in padded)
    outer = bytes(byte ^ 0x5C for byte in padded)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO memoryhub_private.tenant_key (id, secret, inner_pad, outer_pad) VALUES (1, %s, %s, %s)",
            [secret, inner, outer],
        )


def replace_policies(apps, schema_editor):
    from django.conf import settings

    request_role = getattr(settings, "DATABASE_ROLES", {}).get("request", {}).get("USER")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        if cursor.fetchone()[0] == request_role:
            raise RuntimeError(
                f"This migration must run as the maintenance role, not the request role {request_role!r}: the role "
                "that runs it is the one the maintenance_access policies admit. See 'External PostgreSQL' in README."
            )
        for table in _protected_tables(cursor):
            cursor.execute(f"DROP POLICY tenant_isolation ON {table}")
            cursor.execute(f"DROP POLICY IF EXISTS maintenance_access ON {table}")
            for statement in policy_statements(table):
                cursor.execute(statement)


def restore_legacy_policies(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for table in _protected_tables(cursor):
            cursor.execute(f"DROP POLICY tenant_isolation ON {table}")
            cursor.execute(f"DROP POLICY IF EXISTS maintenance_access ON {table}")
            cursor.execute(
                f"CREATE POLICY tenant_isolation ON {table} USING ({LEGACY_CONDITION}) WITH CHECK ({LEGACY_CONDITION})"
            )


class Migration(migrations.Migration):
    dependencies = [
        ("beliefs", "0012_workloads_rls"),
        ("reviews", "0002_workloads"),
    ]

    operations = [
        migrations.RunSQL(CREATE_KEY, reverse_sql="DROP SCHEMA memoryhub_private CASCADE;"),
        migrations.RunPython(create_key, reverse_code=migrations.RunPython.noop),
        migrations.RunSQL(CREATE_FUNCTION, reverse_sql="DROP FUNCTION public.memoryhub_tenant();"),
        migrations.RunPython(replace_policies, reverse_code=restore_legacy_policies),
    ]
