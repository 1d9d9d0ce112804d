from django.urls import path

from audit.api import AuditEventListApi

urlpatterns = [
    path("banks/<bank_slug:bank_slug>/audit-events/", AuditEventListApi.as_view(), name="audit-event-list"),
]
