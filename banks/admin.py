from django.contrib import admin, messages
from guardian.admin import GuardedModelAdmin

from banks.models import ApiKey, Bank, Membership, Tenant
from banks.services.api_keys import api_key_revoke


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "created_at"]
    search_fields = ["slug", "name"]
    inlines = [MembershipInline]


@admin.register(Bank)
class BankAdmin(GuardedModelAdmin):
    list_display = ["slug", "tenant", "name", "created_at"]
    list_filter = ["tenant"]
    search_fields = ["slug", "name"]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["name", "prefix", "tenant", "bank", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["tenant"]
    readonly_fields = ["prefix", "created_at", "last_used_at", "revoked_at", "created_by"]
    fields = ["name", "tenant", "bank", *readonly_fields]
    actions = ["revoke"]

    def has_add_permission(self, request) -> bool:
        # Keys are issued on the dashboard's key pages, the API or the CLI, which show the secret once in
        # their answer; the admin could only pass it on in a message, which sits in a cookie until read.
        return False

    @admin.action(description="Revoke selected keys")
    def revoke(self, request, queryset):
        for api_key in queryset:
            api_key_revoke(api_key=api_key)
        messages.success(request, f"Revoked {queryset.count()} key(s).")
