from django.apps import AppConfig
from django.db.models.signals import post_migrate


class MemoryHubConfig(AppConfig):
    name = "memoryhub"
    verbose_name = "MemoryHub"

    def ready(self):
        from django.urls import register_converter

        from memoryhub.converters import CONVERTERS

        for name, converter in CONVERTERS.items():  # path types of the API routes (memoryhub.converters)
            register_converter(converter, name)
        post_migrate.connect(grant_request_role_after_migrate, dispatch_uid="memoryhub-grant-request-role")


def grant_request_role_after_migrate(sender, using, **kwargs) -> None:
    """After ``migrate`` (run by the maintenance role), give the request role row access to every table."""
    if sender.name != "beliefs":  # post_migrate is sent once per app; every table exists by now
        return
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.db import connections

    from memoryhub.database import grant_request_role

    role = settings.DATABASE_ROLES["request"]["USER"]
    connection = connections[using]
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user, EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s)", [role])
        current, exists = cursor.fetchone()
    if current == role:
        raise ImproperlyConfigured(
            f"Migrations ran as the request role {role!r}: it must not own the schema. Run them as the maintenance "
            "role (MEMORYHUB_MAINTENANCE_DATABASE_URL); see 'External PostgreSQL' in README.md."
        )
    if exists:
        grant_request_role(connection, role)
