from django.urls import path

from workloads.api import anomaly, churn, lessons

urlpatterns = [
    path("banks/<bank_slug:bank_slug>/anomaly/events", anomaly.AnomalyEventApi.as_view(), name="anomaly-events"),
    path("banks/<bank_slug:bank_slug>/anomaly/triage", anomaly.TriageApi.as_view(), name="anomaly-triage"),
    path(
        "banks/<bank_slug:bank_slug>/anomaly/decisions/",
        anomaly.TriageDecisionListApi.as_view(),
        name="anomaly-decision-list",
    ),
    path(
        "banks/<bank_slug:bank_slug>/anomaly/decisions/<int:decision_id>",
        anomaly.TriageDecisionDetailApi.as_view(),
        name="anomaly-decision-detail",
    ),
    path("banks/<bank_slug:bank_slug>/churn/plays/", churn.PlayListApi.as_view(), name="churn-play-list"),
    path(
        "banks/<bank_slug:bank_slug>/churn/plays/<str:name>",
        churn.PlayDetailApi.as_view(),
        name="churn-play-detail",
    ),
    path(
        "banks/<bank_slug:bank_slug>/churn/interventions",
        churn.InterventionApi.as_view(),
        name="churn-interventions",
    ),
    path(
        "banks/<bank_slug:bank_slug>/churn/interventions/<int:intervention_id>",
        churn.InterventionDetailApi.as_view(),
        name="churn-intervention-detail",
    ),
    path("banks/<bank_slug:bank_slug>/churn/outcomes", churn.OutcomeApi.as_view(), name="churn-outcomes"),
    path("banks/<bank_slug:bank_slug>/churn/links", churn.AccountLinkApi.as_view(), name="churn-links"),
    path("banks/<bank_slug:bank_slug>/churn/score", churn.ScoreApi.as_view(), name="churn-score"),
    path("banks/<bank_slug:bank_slug>/churn/recommend", churn.RecommendApi.as_view(), name="churn-recommend"),
    path("banks/<bank_slug:bank_slug>/lessons", lessons.LessonsApi.as_view(), name="lessons"),
]
