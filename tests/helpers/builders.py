"""Bank contents for dashboard tests: a proven-benign alert, a pending suppression, a lesson, a hostile episode."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model

from banks.models import Bank, Membership, Tenant
from banks.permissions import Role
from banks.services.banks import bank_role_set, membership_set
from beliefs.services.retain import RetainItem, retain
from reviews.models import ReviewItem
from tests.factories import BankFactory, TenantFactory
from workloads.anomaly import anomaly_event_record, triage
from workloads.distill import lessons_submit

PASSWORD = "secret-password"
HOSTILE = '<script>alert("xss")</script><img src=x onerror="alert(1)"> disk note'
BASE = datetime(2026, 10, 1, 2, 0, tzinfo=UTC)


def make_user(username: str, *, tenant: Tenant, bank: Bank | None, role: Role):
    """A person in ``tenant``: a tenant admin, or a member holding ``role`` on ``bank``."""
    user = get_user_model().objects.create_user(username=username, password=PASSWORD)
    if role == Role.TENANT_ADMIN:
        membership_set(tenant=tenant, user=user, role=Membership.Role.ADMIN)
    else:
        membership_set(tenant=tenant, user=user, role=Membership.Role.ANALYST)
        if bank is not None and role > Role.NONE:
            bank_role_set(bank=bank, user=user, role=role)
    return user


def prove_benign(bank: Bank, signature: str, host: str, *, start: datetime = BASE, dismissals: int = 4) -> None:
    """Alerts each followed by an analyst's dismissal, folded into a 'benign' belief."""
    for n in range(dismissals):
        at = start + timedelta(days=7 * n)
        anomaly_event_record(bank=bank, event={"type": "alert", "signature": signature, "host": host, "value": 400 + n},
                             occurred_at=at)  # fmt: skip
        anomaly_event_record(
            bank=bank,
            event={"type": "dismissal", "signature": signature, "host": host, "value": 400 + n,
                   "reason": f"backup window, week {n + 1}"},
            occurred_at=at + timedelta(hours=6),
            fold_now=n % 2 == 1 or n == dismissals - 1,  # fold every other week: fewer runs, still a history
        )  # fmt: skip


def suppress(bank: Bank, signature: str, host: str, *, at: datetime) -> ReviewItem:
    result = triage(bank=bank, signature=signature, target=host, value=401, now=at)
    assert result.decision == "suppress", result.reasons
    return ReviewItem.objects.get(pk=result.review_item_id)


@dataclass
class OpsBank:
    tenant: Tenant
    bank: Bank
    users: dict[Role, object] = field(default_factory=dict)
    suppression: ReviewItem | None = None
    lesson: ReviewItem | None = None
    hostile_episode_id: int | None = None


def build_ops_bank(*, suppressions: int = 1) -> OpsBank:
    """A tenant with bank ``ops``: one person per role, pending suppressions, a pending lesson, a hostile episode."""
    tenant = TenantFactory(name="Acme Operations")
    bank = BankFactory(tenant=tenant, slug="ops", name="Operations")
    ops = OpsBank(tenant=tenant, bank=bank)
    for role in (Role.VIEWER, Role.REVIEWER, Role.BANK_ADMIN, Role.TENANT_ADMIN):
        ops.users[role] = make_user(f"{role.name.lower()}-{tenant.pk}", tenant=tenant, bank=bank, role=role)
    hosts = [f"db-{n:02d}" for n in range(1, suppressions + 1)]
    for host in hosts:
        prove_benign(bank, "DiskLatencyHigh", host)
    items = [suppress(bank, "DiskLatencyHigh", host, at=BASE + timedelta(days=27)) for host in hosts]
    ops.suppression = items[0] if items else None
    result = retain(bank=bank, items=[RetainItem(content=HOSTILE, source="agent", subject="host:db-01",
                                                 occurred_at=BASE + timedelta(days=2))])  # fmt: skip
    ops.hostile_episode_id = result.outcomes[0].episode_id
    lesson_evidence = retain(
        bank=bank,
        items=[RetainItem(content="Training session kept initech in SMB after the SSO issue.", source="crm",
                          subject="account:initech", occurred_at=BASE + timedelta(days=3))],
    ).outcomes[0].episode_id  # fmt: skip
    ops.lesson = lessons_submit(
        bank=bank,
        lessons=[{"text": "Offer SMB accounts a training session before any discount.",
                  "play": "training-session", "segment": "SMB", "evidence_episode_ids": [lesson_evidence]}],
        session="s-1",
    )[0]  # fmt: skip
    return ops


def bank_path(ops: OpsBank, path: str = "") -> str:
    return f"/t/{ops.tenant.slug}/banks/{ops.bank.slug}/{path}"
