from django.apps import AppConfig


class BanksConfig(AppConfig):
    name = "banks"
    verbose_name = "Tenants and banks"

    def ready(self):
        from banks import (
            schema,  # noqa: F401 - registers the OpenAPI authentication extension
            sessions,  # noqa: F401 - records sign-in time and a pending first-password change
        )
