"""Workload pages under ``/t/<tenant_slug>/banks/<bank_slug>/``: the suppression log and churn plays."""

from django.urls import path

from workloads import web

app_name = "workloads_web"

urlpatterns = [
    path("anomaly/suppressions/", web.SuppressionLogPage.as_view(), name="suppression-log"),
    path("churn/plays/", web.ChurnPlaysPage.as_view(), name="churn-plays"),
]
