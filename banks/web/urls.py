"""Tenant-level dashboard pages under ``/t/<tenant_slug>/``, and the bank administration pages.

Bank analyst pages live with their apps; the bank admin pages are here because banks,
members, keys and policy are this app's concern. The URL names are the ones the sidebar
(``banks.web.nav``) looks for.
"""

from django.urls import path

from banks.web import bank_admin, erasure, keys, staff, tenant_admin, views

app_name = "banks_web"

TENANT = "t/<slug:tenant_slug>/"
BANK = TENANT + "banks/<slug:bank_slug>/settings/"

urlpatterns = [
    path("staff/tenants/", staff.StaffTenantsPage.as_view(), name="staff-tenants"),
    path(TENANT, views.TenantHomePage.as_view(), name="tenant-home"),
    path(TENANT + "settings/", tenant_admin.TenantSettingsPage.as_view(), name="tenant-settings"),
    path(TENANT + "members/", tenant_admin.TenantMembersPage.as_view(), name="tenant-members"),
    path(TENANT + "api-keys/", keys.TenantApiKeysPage.as_view(), name="tenant-api-keys"),
    path(TENANT + "erasure/", erasure.TenantErasurePage.as_view(), name="tenant-erasure"),
    path(TENANT + "erasure/<int:request_id>/", erasure.TenantErasureDetailPage.as_view(), name="tenant-erasure-detail"),
    path(BANK + "policy/", bank_admin.BankPolicyPage.as_view(), name="bank-policy"),
    path(BANK + "members/", bank_admin.BankMembersPage.as_view(), name="bank-members"),
    path(BANK + "api-keys/", keys.BankApiKeysPage.as_view(), name="bank-api-keys"),
    path(BANK + "erasure/", erasure.BankErasurePage.as_view(), name="bank-erasure"),
    path(BANK + "erasure/<int:request_id>/", erasure.BankErasureDetailPage.as_view(), name="bank-erasure-detail"),
    path(BANK + "defense/", bank_admin.BankDefensePage.as_view(), name="bank-defense"),
]
