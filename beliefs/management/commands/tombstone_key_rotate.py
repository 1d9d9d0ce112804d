"""``manage.py tombstone_key_rotate``: hash new tombstones under a fresh key; the old keys stay for matching."""

from django.core.management.base import BaseCommand

from beliefs.services.forget.tombstones import tombstone_key_rotate


class Command(BaseCommand):
    help = (
        "Add a new tombstone key (kept in memoryhub_private, read only by the maintenance role). New erasures are "
        "hashed under it; tombstones made under earlier keys are still matched, so nothing erased comes back."
    )

    def handle(self, *args, **options):
        key_id = tombstone_key_rotate()
        self.stdout.write(f"tombstone key {key_id} is now used for new tombstones")
