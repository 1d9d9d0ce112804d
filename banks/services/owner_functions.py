"""Calls of the functions through which the tables that grant access are written.

The request role may read API keys, memberships, accounts and bank permissions but not
write them (``memoryhub.database.REQUEST_ROLE_TABLE_GRANTS``). The audited services of this
package write them through ``SECURITY DEFINER`` functions the maintenance role owns
(``banks/migrations/0007_identity_writes_through_owner_functions.py``), which refuse a
session that is not scoped to the tenant they touch. Each call here runs scoped to that
tenant, as the request role, whoever calls it (a request, a task, a command, the admin site).
"""

from __future__ import annotations

from contextlib import contextmanager

from django.db import connection, transaction

from memoryhub.tenancy import tenant_scope


@contextmanager
def tenant_writes(tenant_id: int):
    """Scoped to ``tenant_id`` as the request role, in one transaction (a savepoint inside the caller's).

    What every service that changes access runs in: the owner functions it calls and the audit rows it writes
    (row-level security) both need the tenant's scope. The scope is entered first, so a refusal rolls back to
    the savepoint and the caller's own scope is put back.
    """
    with tenant_scope(tenant_id), transaction.atomic():
        yield


def call(tenant_id: int, function: str, *args):
    """``SELECT public.<function>(args)`` scoped to ``tenant_id``; the first column of the first row."""
    rows = call_rows(tenant_id, function, *args)
    return rows[0][0] if rows else None


def call_rows(tenant_id: int, function: str, *args) -> list[tuple]:
    """``SELECT * FROM public.<function>(args)`` scoped to ``tenant_id``; every row."""
    placeholders = ", ".join(["%s"] * len(args))
    with tenant_writes(tenant_id), connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM public.{function}({placeholders})", list(args))
        return cursor.fetchall()
