from django.urls import path

from beliefs.api import belief_views, erasure_views, views

urlpatterns = [
    path("erasure-requests/", erasure_views.ErasureRequestListCreateApi.as_view(), name="erasure-request-list"),
    path(
        "erasure-requests/<int:request_id>",
        erasure_views.ErasureRequestDetailApi.as_view(),
        name="erasure-request-detail",
    ),
    path("banks/<bank_slug:bank_slug>/retain", views.RetainApi.as_view(), name="retain"),
    path(
        "banks/<bank_slug:bank_slug>/retain-batches/<int:batch_id>",
        views.RetainBatchDetailApi.as_view(),
        name="retain-batch",
    ),
    path("banks/<bank_slug:bank_slug>/recall", views.RecallApi.as_view(), name="recall"),
    path("banks/<bank_slug:bank_slug>/episodes/", views.EpisodeListApi.as_view(), name="episode-list"),
    path(
        "banks/<bank_slug:bank_slug>/episodes/<int:episode_id>", views.EpisodeDetailApi.as_view(), name="episode-detail"
    ),
    path(
        "banks/<bank_slug:bank_slug>/episodes/<int:episode_id>/release",
        views.EpisodeReleaseApi.as_view(),
        name="episode-release",
    ),
    path("banks/<bank_slug:bank_slug>/facts/", belief_views.FactListApi.as_view(), name="fact-list"),
    path("banks/<bank_slug:bank_slug>/facts/<int:fact_id>", belief_views.FactDetailApi.as_view(), name="fact-detail"),
    path("banks/<bank_slug:bank_slug>/beliefs/", belief_views.BeliefListApi.as_view(), name="belief-list"),
    path(
        "banks/<bank_slug:bank_slug>/beliefs/<int:belief_id>",
        belief_views.BeliefDetailApi.as_view(),
        name="belief-detail",
    ),
    path(
        "banks/<bank_slug:bank_slug>/mental-models/",
        belief_views.MentalModelListApi.as_view(),
        name="mental-model-list",
    ),
    path(
        "banks/<bank_slug:bank_slug>/mental-models/<name:name>",
        belief_views.MentalModelDetailApi.as_view(),
        name="mental-model-detail",
    ),
    path(
        "banks/<bank_slug:bank_slug>/mental-models/<name:name>/refresh",
        belief_views.MentalModelRefreshApi.as_view(),
        name="mental-model-refresh",
    ),
    path("banks/<bank_slug:bank_slug>/reflect", belief_views.ReflectApi.as_view(), name="reflect"),
    path("banks/<bank_slug:bank_slug>/background", belief_views.BackgroundApi.as_view(), name="background"),
    path(
        "banks/<bank_slug:bank_slug>/defense-rescans/", belief_views.DefenseRescanApi.as_view(), name="defense-rescans"
    ),
]
