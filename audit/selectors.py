"""Read the audit trail: a tenant's events (or one bank's), newest first."""

from __future__ import annotations

from django.db.models import QuerySet

from audit.models import AuditEvent


def audit_events(*, tenant, bank=None) -> QuerySet[AuditEvent]:
    """The tenant's audit events, or one bank's, newest first; narrow them with ``AuditEventFilterSet``.

    Both scopes walk an index on ``(tenant|bank, created_at)``, and every filter narrows
    rows already found through it.
    """
    events = AuditEvent.objects.filter(tenant=tenant)
    if bank is not None:
        events = events.filter(bank=bank)
    return events.order_by("-created_at", "-id")
