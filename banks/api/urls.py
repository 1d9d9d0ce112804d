from django.urls import path

from banks.api.views import BankDetailApi, BankListCreateApi

urlpatterns = [
    path("banks/", BankListCreateApi.as_view(), name="bank-list"),
    path("banks/<str:bank_slug>/", BankDetailApi.as_view(), name="bank-detail"),
]
