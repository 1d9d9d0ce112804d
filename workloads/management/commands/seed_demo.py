"""``manage.py seed_demo``: a demo tenant, bank, API key, episodes, a mental model and workload records.

Safe to run on every start: the tenant and bank are reused, episodes are retained
idempotently, and the API key is kept in ``$MEMORYHUB_DATA_DIR/demo-api-key`` (a local
file for the demo only; real keys are never stored in clear).
"""

import json
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.utils.dateparse import parse_datetime

from banks.models import Bank, Membership, Tenant
from banks.permissions import Role, bank_roles
from banks.services.api_keys import api_key_authenticate, api_key_issue
from banks.services.banks import bank_create, bank_role_set, membership_set, tenant_create
from beliefs.models import Episode, MentalModel
from beliefs.services.mental_models import mental_model_create, mental_models_refresh
from beliefs.services.retain import RetainItem, retain
from memoryhub.tenancy import rls_bypass, tenant_scope
from reviews.models import ReviewItem
from workloads.anomaly import anomaly_event_record, triage
from workloads.churn import intervention_record, interventions_score, outcome_record
from workloads.distill import lessons_submit
from workloads.models import Intervention

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

        episodes = json.loads((Path(__file__).parent / "demo_episodes.json").read_text())
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
        self._seed_dashboard(tenant, bank)

    # --- Dashboard demo: people to sign in as, and one suppression and one lesson waiting for review ---

    def _seed_dashboard(self, tenant, bank):
        for username, role, what in DEMO_PEOPLE:
            password = _demo_password(username)
            user = _demo_user(username, password)
            tenant_role = Membership.Role.ADMIN if role == "tenant_admin" else Membership.Role.ANALYST
            if not Membership.objects.filter(tenant=tenant, user=user, role=tenant_role).exists():
                membership_set(tenant=tenant, user=user, role=tenant_role, actor="seed_demo")
            if role == "reviewer" and bank_roles(user, tenant).get(bank.pk) != Role.REVIEWER:
                bank_role_set(bank=bank, user=user, role=Role.REVIEWER, actor="seed_demo")
            self.stdout.write(f"demo {what}: sign in at /accounts/login/ as {username} / {password}")
        if not ReviewItem.objects.filter(bank=bank, kind=ReviewItem.Kind.SUPPRESSION).exists():
            # A third dismissal proves DiskLatencyHigh on db-01 benign; the next alert is then suppressed.
            anomaly_event_record(
                bank=bank,
                event={"type": "dismissal", "signature": "DiskLatencyHigh", "host": "db-01", "value": 502,
                       "reason": "nightly backup window, as on the two Mondays before"},
                occurred_at=parse_datetime("2026-10-20T09:10:00Z"),
                fold_now=True,
            )  # fmt: skip
            triage(bank=bank, signature="DiskLatencyHigh", target="db-01", value=470,
                   now=parse_datetime("2026-10-27T02:11:00Z"))  # fmt: skip
            mental_models_refresh(bank=bank)  # the fold above changed a belief outside the task chain
        if not ReviewItem.objects.filter(bank=bank, kind=ReviewItem.Kind.DISTILLATION).exists():
            evidence = list(
                Episode.objects.filter(bank=bank, subject__in=["account:acme-corp", "account:initech"])
                .filter(metadata__event__in=["intervention", "outcome"])
                .values_list("pk", flat=True)
            )
            lessons_submit(
                bank=bank,
                lessons=[{
                    "text": "For SMB accounts at risk, a 10% discount alone did not keep acme-corp; "
                            "offer a training session first and keep the discount for the renewal call.",
                    "play": "training-session", "segment": "SMB", "evidence_episode_ids": evidence,
                }],
                session="churn-assistant 2026-11-03",
                actor="agent:churn-assistant",
            )  # fmt: skip
        if not Intervention.objects.filter(bank=bank).exists():
            # A few churn plays with known outcomes, and one still in flight, for the churn page.
            for account, segment, play, offered, result, known in DEMO_OFFERS:
                intervention_record(bank=bank, account=account, segment=segment, play=play,
                                    occurred_at=parse_datetime(offered))  # fmt: skip
                if result:
                    outcome_record(bank=bank, account=account, result=result, occurred_at=parse_datetime(known),
                                   event_id=f"demo-{account}-{play}")  # fmt: skip
            interventions_score(bank=bank)


DEMO_OFFERS = [
    ("acme-corp", "SMB", "discount-10", "2026-08-06T15:00:00Z", "churned", "2026-10-01T12:00:00Z"),
    ("umbrella", "SMB", "training-session", "2026-08-20T10:00:00Z", "retained", "2026-10-15T12:00:00Z"),
    ("hooli", "SMB", "training-session", "2026-08-25T10:00:00Z", "retained", "2026-10-20T12:00:00Z"),
    ("stark", "SMB", "discount-10", "2026-08-28T10:00:00Z", "retained", "2026-10-25T12:00:00Z"),
    ("globex", "Mid-Market", "exec-review", "2026-07-18T16:00:00Z", "retained", "2026-09-15T12:00:00Z"),
    ("wayne", "Mid-Market", "exec-review", "2026-07-25T16:00:00Z", "churned", "2026-09-20T12:00:00Z"),
    ("initech", "SMB", "training-session", "2026-11-20T13:00:00Z", None, None),
]

DEMO_PEOPLE = [
    ("analyst", "reviewer", "analyst (reviewer in demo/ops)"),
    ("demo-admin", "tenant_admin", "tenant admin"),
]


def _demo_password(username: str) -> str:
    """A random password kept in the data directory (like the demo key), so a demo never runs on a known one.

    It passes the password validators like any other; a file from an older demo that does not is replaced.
    """
    import secrets

    from django.contrib.auth import password_validation
    from django.core.exceptions import ValidationError

    path = Path(settings.DATA_DIR) / f"demo-{username}-password"
    if path.exists():
        try:
            password_validation.validate_password(path.read_text().strip())
        except ValidationError:
            path.unlink()
    if not path.exists():
        path.write_text(secrets.token_urlsafe(12) + "\n")
        path.chmod(0o600)
    return path.read_text().strip()


def _demo_user(username: str, password: str):
    """The demo account, created or given its password as the maintenance role (the request role writes no account)."""
    from django.contrib.auth import password_validation

    with rls_bypass():
        user, _ = get_user_model().objects.get_or_create(username=username)
        if not user.check_password(password):
            password_validation.validate_password(password, user)
            user.set_password(password)
            user.save(update_fields=["password"])
    return user
