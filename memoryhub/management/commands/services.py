"""``manage.py services``: start the local Redis (the embedded PostgreSQL starts with settings)."""

from django.conf import settings
from django.core.management.base import BaseCommand

from memoryhub.devservers import ensure_redis


class Command(BaseCommand):
    help = "Start the local Redis if none answers; report where PostgreSQL is. Stop both with `make stop`."

    def handle(self, *args, **options):
        started = ensure_redis(settings.REDIS_URL, settings.DATA_DIR)
        self.stdout.write(f"redis: {'started' if started else 'already running'} at {settings.REDIS_URL}")
        database = settings.DATABASES["default"]
        self.stdout.write(f"postgres: database {database['NAME']} at {database['HOST'] or 'localhost'}")
