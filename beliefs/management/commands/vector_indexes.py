"""``manage.py vector_indexes``: give large banks their own vector index now (the hourly task does it too)."""

from django.core.management.base import BaseCommand

from beliefs.services.vector_indexes import vector_indexes_refresh


class Command(BaseCommand):
    help = "Build, rebuild or drop the per-bank IVFFlat indexes of large banks (after a bulk import, say)."

    def handle(self, *args, **options):
        counts = vector_indexes_refresh()
        self.stdout.write(", ".join(f"{action} {count}" for action, count in counts.items()))
