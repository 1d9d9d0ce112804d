"""``manage.py defense_rescan [--tenant T] [--bank B] [--inline]``: re-scan what banks store with this version's
Memory Defense detectors (after an upgrade that finds more kinds)."""

from django.core.management.base import BaseCommand

from beliefs.management.banks import add_bank_arguments, selected_banks
from beliefs.services.defense.rescan import defense_rescan_run, defense_rescan_start
from memoryhub.tenancy import tenant_scope

ACTOR = "operator:manage.py defense_rescan"


class Command(BaseCommand):
    help = "Re-scan the stored episodes of every bank (or one tenant's, or one bank) with the current detectors."

    def add_arguments(self, parser):
        add_bank_arguments(parser)
        parser.add_argument(
            "--inline", action="store_true", help="run each re-scan in this process instead of queueing it for a worker"
        )

    def handle(self, *args, tenant=None, bank=None, inline=False, **options):
        for item in selected_banks(tenant, bank):
            with tenant_scope(item.tenant_id):
                rescan = defense_rescan_start(bank=item, actor=ACTOR, queue=not inline)
                if inline:
                    rescan = defense_rescan_run(rescan_id=rescan.pk)
            kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(rescan.kinds.items())) or "nothing"
            done = f"{rescan.redacted_episodes} of {rescan.scanned} episodes redacted ({kinds})" if inline else "queued"
            self.stdout.write(f"{item.tenant.slug}/{item.slug}: re-scan {rescan.pk} of {rescan.total} episodes, {done}")
