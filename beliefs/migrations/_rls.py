"""SQL for the row-level-security policy every bank-owned table carries (see ``memoryhub.tenancy``)."""

CONDITION = (
    "tenant_id = NULLIF(current_setting('app.tenant_id', true), '')::bigint "
    "OR current_setting('app.rls_bypass', true) = 'on'"
)


def enable(table: str) -> str:
    return (
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY; ALTER TABLE {table} FORCE ROW LEVEL SECURITY; "
        f"CREATE POLICY tenant_isolation ON {table} USING ({CONDITION}) WITH CHECK ({CONDITION});"
    )


def disable(table: str) -> str:
    return (
        f"DROP POLICY IF EXISTS tenant_isolation ON {table}; ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY; "
        f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY;"
    )
