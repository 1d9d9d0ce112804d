"""``manage.py reindex [--tenant T] [--bank B]``: rebuild entities, time mentions and term statistics."""

from django.core.management.base import BaseCommand

from banks.models import Bank
from beliefs.services.reindex import bank_reindex
from memoryhub.tenancy import tenant_scope


class Command(BaseCommand):
    help = "Rebuild derived search structures of every bank (or one tenant's, or one bank)."

    def add_arguments(self, parser):
        parser.add_argument("--tenant", help="tenant slug")
        parser.add_argument("--bank", help="bank slug (with --tenant)")

    def handle(self, *args, tenant=None, bank=None, **options):
        banks = Bank.objects.select_related("tenant").order_by("id")
        if tenant:
            banks = banks.filter(tenant__slug=tenant)
        if bank:
            banks = banks.filter(slug=bank)
        for item in banks:
            with tenant_scope(item.tenant_id):
                count = bank_reindex(bank=item)
            self.stdout.write(f"{item.tenant.slug}/{item.slug}: {count} episodes reindexed")
