from django.urls import path

from beliefs.api import views

urlpatterns = [
    path("banks/<str:bank_slug>/retain", views.RetainApi.as_view(), name="retain"),
    path(
        "banks/<str:bank_slug>/retain-batches/<int:batch_id>", views.RetainBatchDetailApi.as_view(), name="retain-batch"
    ),
    path("banks/<str:bank_slug>/recall", views.RecallApi.as_view(), name="recall"),
    path("banks/<str:bank_slug>/episodes/", views.EpisodeListApi.as_view(), name="episode-list"),
    path("banks/<str:bank_slug>/episodes/<int:episode_id>", views.EpisodeDetailApi.as_view(), name="episode-detail"),
]
