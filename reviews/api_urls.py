from django.urls import path

from reviews import api

urlpatterns = [
    path("banks/<bank_slug:bank_slug>/review-items/", api.ReviewItemListApi.as_view(), name="review-item-list"),
    path(
        "banks/<bank_slug:bank_slug>/review-items/<int:item_id>",
        api.ReviewItemDetailApi.as_view(),
        name="review-item-detail",
    ),
    path(
        "banks/<bank_slug:bank_slug>/review-items/<int:item_id>/<str:decision>",
        api.ReviewItemDecideApi.as_view(),
        name="review-item-decide",
    ),
]
