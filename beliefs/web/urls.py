"""Bank pages under ``/t/<tenant_slug>/banks/<bank_slug>/`` for the bank's memory."""

from django.urls import path

from beliefs.web import beliefs, episodes, mental_models, overview

app_name = "beliefs_web"

urlpatterns = [
    path("", overview.BankOverviewPage.as_view(), name="bank-overview"),
    path("beliefs/", beliefs.BeliefListPage.as_view(), name="belief-list"),
    path("beliefs/<int:belief_id>/", beliefs.BeliefDetailPage.as_view(), name="belief-detail"),
    path("episodes/", episodes.EpisodeListPage.as_view(), name="episode-list"),
    path("episodes/<int:episode_id>/", episodes.EpisodeDetailPage.as_view(), name="episode-detail"),
    path("recall/", episodes.RecallPlaygroundPage.as_view(), name="recall"),
    path("mental-models/", mental_models.MentalModelListPage.as_view(), name="mental-model-list"),
    path("mental-models/<str:name>/", mental_models.MentalModelDetailPage.as_view(), name="mental-model-detail"),
]
