"""SQL for the row-level-security policies every bank-owned table carries (see ``memoryhub.tenancy``).

Two policies per table: ``tenant_isolation`` (rows of the tenant whose signed token the
session holds, checked by ``memoryhub_tenant()``) and ``maintenance_access`` (every row,
for the role that runs the migrations and owns the table, and no other).

Migrations from before ``memoryhub_tenant()`` existed (``0007``, ``0009``, ``0012``) call
``enable`` too: there it still creates the earlier, setting-based policy, which
``0013_maintenance_role`` then replaces on every table.
"""

LEGACY_CONDITION = (
    "tenant_id = NULLIF(current_setting('app.tenant_id', true), '')::bigint "
    "OR current_setting('app.rls_bypass', true) = 'on'"
)
CONDITION = "tenant_id = (SELECT memoryhub_tenant())"


def policy_statements(table: str) -> list[str]:
    """The two policies of ``table`` (run by the maintenance role: ``CURRENT_USER`` is it)."""
    return [
        f"CREATE POLICY tenant_isolation ON {table} USING ({CONDITION}) WITH CHECK ({CONDITION})",
        f"CREATE POLICY maintenance_access ON {table} TO CURRENT_USER USING (true) WITH CHECK (true)",
    ]


def enable(table: str) -> str:
    current = " ".join(f"EXECUTE $policy${statement}$policy$;" for statement in policy_statements(table))
    legacy = f"CREATE POLICY tenant_isolation ON {table} USING ({LEGACY_CONDITION}) WITH CHECK ({LEGACY_CONDITION})"
    return (
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY; ALTER TABLE {table} FORCE ROW LEVEL SECURITY; "
        f"DO $do$ BEGIN IF to_regprocedure('public.memoryhub_tenant()') IS NULL THEN "
        f"EXECUTE $policy${legacy}$policy$; ELSE {current} END IF; END $do$;"
    )


def disable(table: str) -> str:
    return (
        f"DROP POLICY IF EXISTS tenant_isolation ON {table}; DROP POLICY IF EXISTS maintenance_access ON {table}; "
        f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY; ALTER TABLE {table} DISABLE ROW LEVEL SECURITY;"
    )
