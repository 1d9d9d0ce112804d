"""Engine pages addressed from the tenant: its home page (every bank it can reach), erasure requests (the
tenant's and a bank's) and a bank's Memory Defense settings."""

from django.urls import path

from beliefs.web import defense, erasure, overview

app_name = "beliefs_tenant"

TENANT = "t/<slug:tenant_slug>/"
BANK_SETTINGS = TENANT + "banks/<bank_slug:bank_slug>/settings/"

urlpatterns = [
    path(TENANT, overview.TenantHomePage.as_view(), name="tenant-home"),
    path(TENANT + "erasure/", erasure.TenantErasurePage.as_view(), name="tenant-erasure"),
    path(TENANT + "erasure/<int:request_id>/", erasure.TenantErasureDetailPage.as_view(), name="tenant-erasure-detail"),
    path(BANK_SETTINGS + "erasure/", erasure.BankErasurePage.as_view(), name="bank-erasure"),
    path(
        BANK_SETTINGS + "erasure/<int:request_id>/", erasure.BankErasureDetailPage.as_view(), name="bank-erasure-detail"
    ),
    path(BANK_SETTINGS + "defense/", defense.BankDefensePage.as_view(), name="bank-defense"),
]
