from django.urls import path

from portability.api import BankExportApi, BankImportApi

urlpatterns = [
    path("banks/<str:bank_slug>/export", BankExportApi.as_view(), name="bank-export"),
    path("banks/<str:bank_slug>/import", BankImportApi.as_view(), name="bank-import"),
]
