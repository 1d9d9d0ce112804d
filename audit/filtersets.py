"""Filters of the audit trail, shared by the API (``?action=&since=``) and the audit log pages."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import django_filters
from django import forms

from audit.models import AuditEvent
from memoryhub.filters import TimeFilter


class AuditEventFilterSet(django_filters.FilterSet):
    """``action``: exact, or a family ending in a dot (``api_key.``); ``actor`` and ``target``: a prefix."""

    action = django_filters.CharFilter(
        method="filter_action", max_length=64, help_text="Exact, or a family ending in a dot: api_key."
    )
    actor = django_filters.CharFilter(lookup_expr="startswith", max_length=200, help_text="Starts with: user:ana")
    target = django_filters.CharFilter(lookup_expr="startswith", max_length=200, help_text="Starts with: erasure:12")
    request_id = django_filters.CharFilter(max_length=64, label="Request id")
    since = TimeFilter(field_name="created_at", lookup_expr="gte", help_text="At or after this time (ISO 8601).")
    until = TimeFilter(field_name="created_at", lookup_expr="lt", help_text="Before this time (ISO 8601).")

    class Meta:
        model = AuditEvent
        fields = ["action", "actor", "target", "request_id", "since", "until"]

    def filter_action(self, queryset, name, value):
        value = value.strip()
        return queryset.filter(action__startswith=value) if value.endswith(".") else queryset.filter(action=value)


DAY = forms.DateInput(attrs={"type": "date"})


class AuditLogFilterSet(AuditEventFilterSet):
    """The audit log page's filters: calendar days (``until`` inclusive) and, for a tenant, a bank picker."""

    since = django_filters.DateFilter(method="filter_since", label="From", widget=DAY)
    until = django_filters.DateFilter(method="filter_until", label="To (inclusive)", widget=DAY)

    def __init__(self, *args, banks=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.filters["action"].field.widget.attrs.update({"list": "audit-actions", "placeholder": "e.g. erasure."})
        if banks is not None:
            choices = [(b.slug, b.name) for b in banks]
            self.filters["bank"] = django_filters.ChoiceFilter(
                field_name="bank_slug", choices=choices, empty_label="Every bank", label="Bank"
            )

    # Days are UTC, compared as times so the (tenant|bank, created_at) index still narrows the scan.
    def filter_since(self, queryset, name, value):
        return queryset.filter(created_at__gte=datetime.combine(value, time.min, tzinfo=UTC))

    def filter_until(self, queryset, name, value):
        return queryset.filter(created_at__lt=datetime.combine(value + timedelta(days=1), time.min, tzinfo=UTC))
