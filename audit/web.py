"""The audit log pages (a bank's, a tenant's): filters, keyset pages and a streamed CSV export.

Pages walk the ``(tenant|bank, created_at)`` index with a cursor (the last row's time and
id) instead of an offset and never count the whole log, so the hundredth page costs what
the first does. The CSV streams every matching row in chunks, in its own transaction
scoped to the tenant (the page's transaction has ended by the time a stream is read).
"""

from __future__ import annotations

import csv
import json
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.http import StreamingHttpResponse
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from audit.filtersets import AuditLogFilterSet
from audit.selectors import audit_events
from banks.permissions import Role
from banks.web.access import BankPageView, TenantPageView
from memoryhub.tenancy import tenant_scope

PAGE_SIZE = 50
CSV_COLUMNS = ["time", "actor", "action", "bank", "target", "request_id", "details"]
# Known actions for the filter's suggestions (any other action can still be typed).
KNOWN_ACTIONS = [
    "anomaly.", "api_key.issued", "api_key.revoked", "bank.created", "bank.deleted", "bank.exported",
    "bank.imported", "bank.updated", "defense.rescan", "episode.deleted", "episode.released", "episodes.retained",
    "episodes.retain_queued", "erasure.requested", "erasure.completed", "lesson.submitted", "membership.set",
    "membership.removed", "mental_model.created", "mental_model.deleted", "permission.granted", "review.",
    "role.set", "tenant.updated",
]  # fmt: skip


def _cursor(value: str) -> tuple[datetime, int] | None:
    """``before=<iso time>_<id>``: the last row of the previous page; anything malformed starts over."""
    moment, _, pk = (value or "").rpartition("_")
    at = parse_datetime(moment) if moment else None
    if at is None or not pk.isdigit():
        return None
    return (at if timezone.is_aware(at) else timezone.make_aware(at)), int(pk)


def _page(events, before: str):
    cursor = _cursor(before)
    if cursor is not None:
        at, pk = cursor
        events = events.filter(Q(created_at__lt=at) | Q(created_at=at, pk__lt=pk))
    rows = list(events[: PAGE_SIZE + 1])
    more = len(rows) > PAGE_SIZE
    rows = rows[:PAGE_SIZE]
    following = f"{rows[-1].created_at.isoformat()}_{rows[-1].pk}" if more else ""
    return rows, following


def _cell(value) -> str:
    """A CSV cell a spreadsheet will not run: text starting with = + - @ (or a tab/CR) gets a leading quote."""
    text = "" if value is None else str(value)
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


class _Echo:
    def write(self, value):
        return value


def audit_csv(*, tenant_id: int, events, filename: str) -> StreamingHttpResponse:
    """Every event of ``events`` as CSV, streamed 2,000 rows at a time."""
    writer = csv.writer(_Echo())

    def rows():
        yield writer.writerow(CSV_COLUMNS)
        with transaction.atomic(), tenant_scope(tenant_id):
            for e in events.iterator(chunk_size=2000):
                details = json.dumps(e.details, sort_keys=True, separators=(",", ":")) if e.details else ""
                values = [e.created_at.isoformat(), e.actor, e.action, e.bank_slug, e.target, e.request_id, details]
                yield writer.writerow([_cell(v) for v in values])

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


# Audit targets that have a page in their bank: kind -> (URL name, the kwarg the target's id fills).
TARGET_PAGES = {
    "episode": ("beliefs_web:episode-detail", "episode_id"),
    "mental_model": ("beliefs_web:mental-model-detail", "name"),
    "erasure": ("beliefs_tenant:bank-erasure-detail", "request_id"),
    "rescan": ("beliefs_tenant:bank-defense", None),
    "api_key": ("banks_web:bank-api-keys", None),
}


def target_link(event, tenant_slug: str, bank_slugs: set[str]) -> str:
    """The page an event's target lives on, when there is one and its bank still exists; else ''."""
    kind, _, ident = event.target.partition(":")
    if kind not in TARGET_PAGES or not ident or event.bank_slug not in bank_slugs:
        return ""
    name, kwarg = TARGET_PAGES[kind]
    kwargs = {"tenant_slug": tenant_slug, "bank_slug": event.bank_slug}
    if kwarg:
        if kwarg.endswith("_id") and not ident.isdigit():
            return ""
        kwargs[kwarg] = ident
    try:
        return reverse(name, kwargs=kwargs)
    except NoReverseMatch:
        return ""


class _AuditPage:
    """Shared by the bank and tenant audit pages: filter form, one page of rows, CSV on ``?format=csv``."""

    template = "audit/audit_log.html"

    def audit_scope(self) -> dict:
        raise NotImplementedError

    def filters(self, events) -> AuditLogFilterSet:
        return AuditLogFilterSet(self.request.GET or None, queryset=events)

    def get(self, request, **kwargs):
        filters = self.filters(audit_events(**self.audit_scope()))
        events = filters.qs
        if request.GET.get("format") == "csv":
            stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
            name = f"audit-{self.tenant.slug}{'-' + self.bank.slug if getattr(self, 'bank', None) else ''}-{stamp}.csv"
            return audit_csv(tenant_id=self.tenant.pk, events=events, filename=name)
        rows, following = _page(events, request.GET.get("before", ""))
        bank_slugs = {b.slug for b in self.page.banks}
        for event in rows:
            event.link = target_link(event, self.tenant.slug, bank_slugs)
        return self.render(
            self.template,
            {
                "form": filters.form,
                "events": rows,
                "following": following,
                "paged": bool(request.GET.get("before")),
                "known_actions": KNOWN_ACTIONS,
                "scope_title": self.scope_title(),
            },
        )


class BankAuditPage(_AuditPage, BankPageView):
    """Everything recorded about one bank."""

    roles = {"GET": Role.BANK_ADMIN}

    def audit_scope(self) -> dict:
        return {"tenant": self.tenant, "bank": self.bank}

    def scope_title(self) -> str:
        return f"Everything recorded in {self.bank.name}"


class TenantAuditPage(_AuditPage, TenantPageView):
    """Everything recorded in the tenant: its banks, members, keys and erasures."""

    roles = {"GET": Role.TENANT_ADMIN}

    def audit_scope(self) -> dict:
        return {"tenant": self.tenant}

    def filters(self, events) -> AuditLogFilterSet:
        return AuditLogFilterSet(self.request.GET or None, queryset=events, banks=self.page.banks)

    def scope_title(self) -> str:
        return f"Everything recorded in {self.tenant.name}"
