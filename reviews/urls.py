"""The review queue's pages under ``/t/<tenant_slug>/banks/<bank_slug>/reviews/``."""

from django.urls import path

from reviews import views

app_name = "reviews_web"

urlpatterns = [
    path("reviews/", views.ReviewQueuePage.as_view(), name="queue"),
    path("reviews/bulk-accept", views.ReviewBulkAcceptPage.as_view(), name="bulk-accept"),
    path("reviews/<int:item_id>/decide", views.ReviewDecidePage.as_view(), name="decide"),
]
