"""``manage.py seed_demo``: a demo tenant, bank, API key, a small set of episodes and a mental model.

Safe to run on every start: the tenant and bank are reused, episodes are retained
idempotently, and the API key is kept in ``$MEMORYHUB_DATA_DIR/demo-api-key`` (a local
file for the demo only; real keys are never stored in clear).
"""

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils.dateparse import parse_datetime

import beliefs.demo
from banks.models import Bank, Tenant
from banks.services.api_keys import api_key_authenticate, api_key_issue
from banks.services.banks import bank_create, tenant_create
from beliefs.models import MentalModel
from beliefs.services.mental_models import mental_model_create
from beliefs.services.retain import RetainItem, retain
from memoryhub.tenancy import tenant_scope

DEMO_TENANT = "demo"
DEMO_BANK = "ops"


class Command(BaseCommand):
    help = "Create the demo tenant, bank and API key, and retain the bundled demo episodes."

    def handle(self, *args, **options):
        tenant = Tenant.objects.filter(slug=DEMO_TENANT).first() or tenant_create(slug=DEMO_TENANT, name="Demo")
        # Seeding writes one tenant's memory: it runs scoped to that tenant, as the request role, like a request.
        with tenant_scope(tenant.pk):
            self._seed(tenant)

    def _seed(self, tenant):
        bank = Bank.objects.filter(tenant=tenant, slug=DEMO_BANK).first() or bank_create(
            tenant=tenant,
            slug=DEMO_BANK,
            name="Operations and customers",
            description="Demo bank: infrastructure alerts, analyst decisions and churn interventions.",
        )
        key_file = Path(settings.DATA_DIR) / "demo-api-key"
        raw_key = key_file.read_text().strip() if key_file.exists() else ""
        if not raw_key or api_key_authenticate(raw_key=raw_key) is None:
            raw_key = api_key_issue(tenant=tenant, name="demo key", scopes=["read", "write", "admin"]).raw_key
            key_file.write_text(raw_key + "\n")
            key_file.chmod(0o600)

        episodes = json.loads((Path(beliefs.demo.__file__).parent / "episodes.json").read_text())
        items = [
            RetainItem(
                content=e["content"],
                occurred_at=parse_datetime(e["occurred_at"]),
                source=e["source"],
                subject=e["subject"],
                metadata=e["metadata"],
            )
            for e in episodes
        ]
        result = retain(bank=bank, items=items)
        self.stdout.write(
            f"demo bank {tenant.slug}/{bank.slug}: {result.created} new episodes, {result.duplicates} already there"
        )
        if not MentalModel.objects.filter(bank=bank, name="benign-alerts").exists():
            mental_model_create(
                bank=bank,
                name="benign-alerts",
                question="Which alert signatures are known benign, and on which hosts?",
                belief_filter={"object": "benign"},
            )
        self.stdout.write(f"demo API key: {raw_key}")
