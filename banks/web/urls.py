"""Tenant and bank administration pages: settings, members, keys (and the staff page).

Analyst pages live with their apps; these are here because tenants, banks, members, keys
and policy are this app's concern. The URL names are the ones the sidebar
(``banks.web.nav``) looks for.
"""

from django.urls import path

from banks.web import bank_admin, keys, staff, tenant_admin

app_name = "banks_web"

TENANT = "t/<slug:tenant_slug>/"
BANK = TENANT + "banks/<bank_slug:bank_slug>/settings/"

urlpatterns = [
    path("staff/tenants/", staff.StaffTenantsPage.as_view(), name="staff-tenants"),
    path(TENANT + "settings/", tenant_admin.TenantSettingsPage.as_view(), name="tenant-settings"),
    path(TENANT + "members/", tenant_admin.TenantMembersPage.as_view(), name="tenant-members"),
    path(TENANT + "api-keys/", keys.TenantApiKeysPage.as_view(), name="tenant-api-keys"),
    path(BANK + "policy/", bank_admin.BankPolicyPage.as_view(), name="bank-policy"),
    path(BANK + "members/", bank_admin.BankMembersPage.as_view(), name="bank-members"),
    path(BANK + "api-keys/", keys.BankApiKeysPage.as_view(), name="bank-api-keys"),
]
