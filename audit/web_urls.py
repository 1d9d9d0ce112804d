"""The audit log pages: a tenant's (``/t/<tenant>/audit/``) and a bank's (under its settings)."""

from django.urls import path

from audit import web

app_name = "audit_web"

TENANT = "t/<slug:tenant_slug>/"

urlpatterns = [
    path(TENANT + "audit/", web.TenantAuditPage.as_view(), name="tenant-audit"),
    path(TENANT + "banks/<bank_slug:bank_slug>/settings/audit/", web.BankAuditPage.as_view(), name="bank-audit"),
]
