"""Record audit events. Callers pass identifiers and counts only; content never goes in."""

from __future__ import annotations

from audit.models import AuditEvent
from memoryhub.request_context import current_request_id


def actor_of(request) -> str:
    if request is None:
        return "system"
    key_prefix = getattr(getattr(request, "auth", None), "prefix", None)  # an API key authenticated the request
    if key_prefix:
        return f"api-key:{key_prefix}"
    user = getattr(request, "user", None)
    return f"user:{user.get_username()}" if user is not None and user.is_authenticated else "anonymous"


def audit_record(
    *,
    tenant,
    bank=None,
    action: str,
    target: str = "",
    details: dict | None = None,
    actor: str = "system",
) -> AuditEvent:
    """Write one audit event for ``actor`` (``actor_of(request)`` in a view), in the caller's transaction.

    It commits or rolls back with the change it records; services call it, views never do.
    """
    return AuditEvent.objects.create(
        tenant_id=getattr(tenant, "pk", tenant),
        bank=bank,
        bank_slug=bank.slug if bank is not None else "",
        actor=actor or "system",
        action=action,
        target=target[:200],
        request_id=current_request_id(),
        details=details or {},
    )


MAX_IDS_PER_EVENT = 100


def admin_site_access_record(
    *, actor: str, model: str, ids_by_tenant: dict[int, list[int]], action: str, details: dict | None = None
) -> None:
    """Record what the admin site showed or changed: one event per tenant whose rows it touched (ids capped)."""
    for tenant_id, ids in ids_by_tenant.items():
        counted = {"model": model, "ids": ids[:MAX_IDS_PER_EVENT], "count": len(ids), **(details or {})}
        audit_record(actor=actor, tenant=tenant_id, action=action, target=f"admin:{model}", details=counted)
