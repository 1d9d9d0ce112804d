from django.urls import path

from beliefs.api import anomaly_views, belief_views, churn_views, erasure_views, views, workload_views
from reviews import api as review_views

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
    path("banks/<bank_slug:bank_slug>/anomaly/events", anomaly_views.AnomalyEventApi.as_view(), name="anomaly-events"),
    path("banks/<bank_slug:bank_slug>/anomaly/triage", anomaly_views.TriageApi.as_view(), name="anomaly-triage"),
    path(
        "banks/<bank_slug:bank_slug>/anomaly/decisions/",
        anomaly_views.TriageDecisionListApi.as_view(),
        name="anomaly-decision-list",
    ),
    path(
        "banks/<bank_slug:bank_slug>/anomaly/decisions/<int:decision_id>",
        anomaly_views.TriageDecisionDetailApi.as_view(),
        name="anomaly-decision-detail",
    ),
    path("banks/<bank_slug:bank_slug>/churn/plays/", churn_views.PlayListApi.as_view(), name="churn-play-list"),
    path(
        "banks/<bank_slug:bank_slug>/churn/plays/<str:name>",
        churn_views.PlayDetailApi.as_view(),
        name="churn-play-detail",
    ),
    path(
        "banks/<bank_slug:bank_slug>/churn/interventions",
        churn_views.InterventionApi.as_view(),
        name="churn-interventions",
    ),
    path(
        "banks/<bank_slug:bank_slug>/churn/interventions/<int:intervention_id>",
        churn_views.InterventionDetailApi.as_view(),
        name="churn-intervention-detail",
    ),
    path("banks/<bank_slug:bank_slug>/churn/outcomes", churn_views.OutcomeApi.as_view(), name="churn-outcomes"),
    path("banks/<bank_slug:bank_slug>/churn/links", churn_views.AccountLinkApi.as_view(), name="churn-links"),
    path("banks/<bank_slug:bank_slug>/churn/score", churn_views.ScoreApi.as_view(), name="churn-score"),
    path("banks/<bank_slug:bank_slug>/churn/recommend", churn_views.RecommendApi.as_view(), name="churn-recommend"),
    path("banks/<bank_slug:bank_slug>/lessons", workload_views.LessonsApi.as_view(), name="lessons"),
    path(
        "banks/<bank_slug:bank_slug>/review-items/", review_views.ReviewItemListApi.as_view(), name="review-item-list"
    ),
    path(
        "banks/<bank_slug:bank_slug>/review-items/<int:item_id>",
        review_views.ReviewItemDetailApi.as_view(),
        name="review-item-detail",
    ),
    path(
        "banks/<bank_slug:bank_slug>/review-items/<int:item_id>/<str:decision>",
        review_views.ReviewItemDecideApi.as_view(),
        name="review-item-decide",
    ),
]
