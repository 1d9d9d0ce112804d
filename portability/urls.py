from django.urls import path

from portability.api import BankExportApi, BankImportApi

urlpatterns = [
    path("banks/<bank_slug:bank_slug>/export", BankExportApi.as_view(), name="bank-export"),
    path("banks/<bank_slug:bank_slug>/import", BankImportApi.as_view(), name="bank-import"),
]
