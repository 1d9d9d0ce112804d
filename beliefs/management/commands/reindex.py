"""``manage.py reindex [--tenant T] [--bank B]``: rebuild entities, time mentions and term statistics."""

from django.core.management.base import BaseCommand

from beliefs.management.banks import add_bank_arguments, selected_banks
from beliefs.services.reindex import bank_reindex
from memoryhub.tenancy import tenant_scope


class Command(BaseCommand):
    help = "Rebuild derived search structures of every bank (or one tenant's, or one bank)."

    def add_arguments(self, parser):
        add_bank_arguments(parser)

    def handle(self, *args, tenant=None, bank=None, **options):
        for item in selected_banks(tenant, bank):
            with tenant_scope(item.tenant_id):
                count = bank_reindex(bank=item)
            self.stdout.write(f"{item.tenant.slug}/{item.slug}: {count} episodes reindexed")
