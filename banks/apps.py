from django.apps import AppConfig


class BanksConfig(AppConfig):
    name = "banks"
    verbose_name = "Tenants and banks"
