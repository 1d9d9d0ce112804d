"""The tombstone key: erased subjects are hashed under a key kept with the data, not under ``SECRET_KEY``.

- ``memoryhub_private.tombstone_key``: random HMAC keys (as their ipad/opad blocks), newest
  last; only the maintenance role reads the schema. A rotation adds a row and keeps the
  old ones, so tombstones made under an older key are still matched.
- ``memoryhub_tombstone_hashes(messages)``: for each message and each key, the
  HMAC-SHA256 (hex) and whether the key is the newest. SECURITY DEFINER, so request code
  gets hashes without ever reading the key.

Tombstones written before this migration stay keyed on ``SECRET_KEY`` (see
``beliefs.services.forget.tombstones``). Migrating back drops the function but keeps the
keys: tombstones outlive a migration round trip, and forward again reuses the keys.
"""

import hashlib
import secrets

from django.db import migrations

BLOCK = hashlib.sha256().block_size

CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS memoryhub_private.tombstone_key (
    id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    inner_pad bytea NOT NULL CHECK (length(inner_pad) = 64),
    outer_pad bytea NOT NULL CHECK (length(outer_pad) = 64),
    created_at timestamptz NOT NULL DEFAULT now()
);
"""

CREATE_FUNCTION = """
CREATE FUNCTION public.memoryhub_tombstone_hashes(p_messages text[])
RETURNS TABLE (message text, subject_hash text, newest boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT m.message,
           encode(sha256(k.outer_pad || sha256(k.inner_pad || convert_to(m.message, 'UTF8'))), 'hex'),
           k.id = (SELECT max(id) FROM memoryhub_private.tombstone_key)
    FROM unnest(p_messages) AS m(message)
    CROSS JOIN memoryhub_private.tombstone_key AS k
$fn$;
"""


def pads(secret: bytes) -> tuple[bytes, bytes]:
    """HMAC's inner and outer key blocks for a key of at most one block."""
    padded = secret.ljust(BLOCK, b"\0")
    return bytes(b ^ 0x36 for b in padded), bytes(b ^ 0x5C for b in padded)


def create_key(apps, schema_editor):
    inner, outer = pads(secrets.token_bytes(32))
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memoryhub_private.tombstone_key")
        if cursor.fetchone()[0]:
            return  # kept from before a migration round trip
        cursor.execute(
            "INSERT INTO memoryhub_private.tombstone_key (inner_pad, outer_pad) VALUES (%s, %s)", [inner, outer]
        )


class Migration(migrations.Migration):
    dependencies = [
        ("beliefs", "0021_workload_models_to_workloads_app"),
    ]

    operations = [
        migrations.RunSQL(CREATE_TABLE, reverse_sql=migrations.RunSQL.noop),
        migrations.RunPython(create_key, reverse_code=migrations.RunPython.noop),
        migrations.RunSQL(CREATE_FUNCTION, reverse_sql="DROP FUNCTION public.memoryhub_tombstone_hashes(text[]);"),
    ]
