from django.urls import path

from banks.api.views import ApiKeyDetailApi, ApiKeyListCreateApi, BankDetailApi, BankListCreateApi

urlpatterns = [
    path("api-keys/", ApiKeyListCreateApi.as_view(), name="api-key-list"),
    path("api-keys/<key_prefix:prefix>", ApiKeyDetailApi.as_view(), name="api-key-detail"),
    path("banks/", BankListCreateApi.as_view(), name="bank-list"),
    path("banks/<bank_slug:bank_slug>/", BankDetailApi.as_view(), name="bank-detail"),
]
