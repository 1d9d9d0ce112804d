"""The Django admin site: an operator's view across tenants, held to Django's per-model permissions and audited.

The admin runs as the maintenance role (``memoryhub.tenancy.AdminRowLevelBypassMiddleware``),
so it sees every tenant. Every list, detail page and change of a tenant's rows is written
to that tenant's audit log (``admin.viewed``, ``admin.changed``, ``admin.deleted``) by
``AuditedAdmin``; tenant admins see who looked and what changed. What grants access is not
edited here: memberships and bank roles are read-only (people get them in the dashboard,
staff by breaking glass on the staff page), keys are revoked through the audited service (and
issued where the secret can be shown once: the key pages, the API, the CLI), and banks change
through the dashboard or the API, which validate the policy.
"""

from __future__ import annotations

from collections import defaultdict

from django.contrib import admin, messages

from audit.services import actor_of
from banks.models import ApiKey, Bank, Membership, Tenant
from banks.services.api_keys import api_key_revoke


class AuditedAdmin(admin.ModelAdmin):
    """Writes each admin view and change of tenant rows to the audit log of the tenant they belong to."""

    def tenant_of(self, obj) -> int | None:
        return getattr(obj, "tenant_id", None)

    def audit(self, request, objects, action: str, **details) -> None:
        from audit.services import actor_of, admin_site_access_record

        by_tenant: dict[int, list] = defaultdict(list)
        for obj in objects:
            tenant_id = self.tenant_of(obj)
            if tenant_id is not None:
                by_tenant[tenant_id].append(obj.pk)
        admin_site_access_record(actor=actor_of(request), model=self.model._meta.label_lower, ids_by_tenant=by_tenant,
                                 action=action, details=details)  # fmt: skip

    def changelist_view(self, request, extra_context=None):
        response = super().changelist_view(request, extra_context)
        changelist = (getattr(response, "context_data", None) or {}).get("cl")
        if changelist is not None:
            self.audit(request, list(changelist.result_list), "admin.viewed", view="list")
        return response

    def change_view(self, request, object_id, form_url="", extra_context=None):
        response = super().change_view(request, object_id, form_url, extra_context)
        original = (getattr(response, "context_data", None) or {}).get("original")
        if request.method == "GET" and original is not None:
            self.audit(request, [original], "admin.viewed", view="detail")
        return response

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        self.audit(request, [obj], "admin.changed" if change else "admin.added", fields=sorted(form.changed_data))

    def delete_model(self, request, obj):
        self.audit(request, [obj], "admin.deleted")
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        self.audit(request, list(queryset), "admin.deleted")
        super().delete_queryset(request, queryset)


class _NoWrites:
    """Nobody adds, changes or deletes these rows in the admin site (superusers neither)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(_NoWrites, AuditedAdmin):
    """Shown, never changed, in the admin site (and every view audited)."""


class MembershipInline(_NoWrites, admin.TabularInline):
    """Read-only: people join a tenant in the dashboard; staff only by breaking glass on the staff page."""

    model = Membership
    extra = 0
    fields = ["user", "role", "created_at"]
    readonly_fields = fields


@admin.register(Tenant)
class TenantAdmin(AuditedAdmin):
    list_display = ["slug", "name", "max_api_key_lifetime_days", "created_at"]
    search_fields = ["slug", "name"]
    inlines = [MembershipInline]

    def tenant_of(self, obj) -> int | None:
        return obj.pk

    def get_readonly_fields(self, request, obj=None):
        return ["slug"] if obj is not None else []  # part of every URL

    def has_delete_permission(self, request, obj=None):
        return False  # a tenant's memory goes through erasure and bank deletion, with receipts


@admin.register(Bank)
class BankAdmin(ReadOnlyAdmin):
    """Banks change in the dashboard or through the API, which validate the policy and re-scan when needed."""

    list_display = ["slug", "tenant", "name", "created_at"]
    list_filter = ["tenant"]
    search_fields = ["slug", "name"]


@admin.register(ApiKey)
class ApiKeyAdmin(AuditedAdmin):
    list_display = ["name", "prefix", "tenant", "bank", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["tenant"]
    readonly_fields = ["prefix", "scopes", "expires_at", "created_at", "last_used_at", "revoked_at", "created_by",
                       "created_by_key"]  # fmt: skip
    fields = ["name", "tenant", "bank", *readonly_fields]
    actions = ["revoke"]

    def get_readonly_fields(self, request, obj=None):
        if obj is not None:  # an issued key changes only by being revoked
            return ["name", "tenant", "bank", *self.readonly_fields]
        return self.readonly_fields

    def has_add_permission(self, request) -> bool:
        # Keys are issued on the dashboard's key pages, the API or the CLI, which show the secret once in
        # their answer; the admin could only pass it on in a message, which sits in a cookie until read.
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # revoke instead: the row (and its audit trail) stays

    @admin.action(description="Revoke selected keys (and the keys they issued)", permissions=["change"])
    def revoke(self, request, queryset):
        keys = list(queryset)
        for api_key in keys:
            api_key_revoke(api_key=api_key, actor=actor_of(request))
        messages.success(request, f"Revoked {len(keys)} key(s).")
