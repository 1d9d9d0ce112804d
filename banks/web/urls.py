"""Tenant-level dashboard pages under ``/t/<tenant_slug>/`` (bank pages live with their apps)."""

from django.urls import path

from banks.web import views

app_name = "banks_web"

urlpatterns = [
    path("t/<slug:tenant_slug>/", views.TenantHomePage.as_view(), name="tenant-home"),
]
