"""Create tenants and banks, change their settings, and manage who may reach them.

Each change a person can make in the dashboard or through the API goes through one
function here, which also writes the audit event: both front ends leave the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from guardian.shortcuts import assign_perm

from banks.models import Bank, BankUserObjectPermission, Membership, Tenant
from memoryhub.exceptions import BankSlugTaken
from memoryhub.text_defense import text_defend

if TYPE_CHECKING:
    from beliefs.models import DefenseRescan

BANK_READ_PERMISSION = "banks.view_bank"
BANK_WRITE_PERMISSION = "banks.change_bank"


def tenant_create(*, slug: str, name: str) -> Tenant:
    """Create a tenant."""
    return Tenant.objects.create(slug=slug, name=name)


def membership_set(*, tenant: Tenant, user, role: str, actor: str = "system") -> Membership:
    """Add ``user`` to ``tenant`` with ``role`` (or change their role); the change is audited."""
    from audit.services import audit_record

    membership, _ = Membership.objects.update_or_create(tenant=tenant, user=user, defaults={"role": role})
    audit_record(
        tenant=tenant,
        action="membership.set",
        target=f"user:{user.get_username()}",
        details={"role": role},
        actor=actor,
    )
    return membership


def bank_create(
    *,
    tenant: Tenant,
    slug: str,
    name: str = "",
    description: str = "",
    background: str = "",
    policy: dict | None = None,
    created_by=None,
) -> Bank:
    """Create a bank in ``tenant``; its creator (a person) may read and write it."""
    description, background = text_defend(bank=None, value=[description, background], field="bank", policy=policy or {})
    try:
        with transaction.atomic():
            bank = Bank.objects.create(
                tenant=tenant,
                slug=slug,
                name=name or slug,
                description=description,
                background=background,
                policy=policy or {},
            )
    except IntegrityError as exc:
        raise BankSlugTaken(extra={"slug": slug}) from exc
    if created_by is not None and getattr(created_by, "pk", None):
        bank_access_grant(bank=bank, user=created_by, write=True)
    return bank


def tenant_update(*, tenant: Tenant, name: str, actor: str = "system") -> Tenant:
    """Rename a tenant (its slug, part of every URL, stays); audited."""
    from audit.services import audit_record

    if name != tenant.name:
        tenant.name = name
        tenant.save(update_fields=["name"])
        audit_record(tenant=tenant, action="tenant.updated", target=f"tenant:{tenant.slug}",
                     details={"fields": ["name"]}, actor=actor)  # fmt: skip
    return tenant


def membership_remove(*, tenant: Tenant, user, actor: str = "system") -> bool:
    """Take ``user`` out of ``tenant`` with every role they held on its banks; audited. False if not a member."""
    from audit.services import audit_record

    with transaction.atomic():
        deleted, _ = Membership.objects.filter(tenant=tenant, user=user).delete()
        if not deleted:
            return False
        roles = BankUserObjectPermission.objects.filter(user=user, content_object__tenant=tenant).delete()[0]
        audit_record(tenant=tenant, action="membership.removed", target=f"user:{user.get_username()}",
                     details={"bank_permissions_removed": roles}, actor=actor)  # fmt: skip
    return True


@dataclass(frozen=True)
class BankChange:
    bank: Bank
    rescan: DefenseRescan | None  # started because the change tightened Memory Defense


def bank_settings_change(*, bank: Bank, request=None, actor: str | None = None, **fields) -> BankChange:
    """Change a bank's name, description, background or policy (validated), re-scan, audit.

    What ``PATCH banks/{bank}/`` and the dashboard's policy page both call: the policy is
    replaced whole and checked by ``banks.policy.validate_policy``; when it tightens Memory
    Defense a re-scan of the stored episodes starts; one ``bank.updated`` event records the
    fields sent and the new policy.
    """
    from audit.services import audit_record
    from banks.policy import bank_policy, defense_tightened, validate_policy
    from beliefs.services.defense.rescan import defense_rescan_start

    if "policy" in fields:
        validate_policy(fields["policy"])
    before = bank_policy(bank)
    bank = bank_update(bank=bank, **fields)
    tightened = defense_tightened(before, bank_policy(bank))
    rescan = defense_rescan_start(bank=bank) if tightened else None
    audit_record(
        request=request,
        actor=actor,
        tenant=bank.tenant_id,
        bank=bank,
        action="bank.updated",
        target=f"bank:{bank.slug}",
        details={"fields": sorted(fields), "policy": bank.policy if "policy" in fields else None},
    )
    return BankChange(bank=bank, rescan=rescan)


def bank_create_and_audit(*, request=None, tenant: Tenant, slug: str, created_by=None, **fields) -> Bank:
    """Create a bank (``bank_create``) and audit it: what ``POST banks/`` and the tenant settings page call."""
    from audit.services import audit_record

    bank = bank_create(tenant=tenant, slug=slug, created_by=created_by, **fields)
    audit_record(request=request, tenant=tenant, bank=bank, action="bank.created", target=f"bank:{bank.slug}")
    return bank


def bank_update(*, bank: Bank, **fields) -> Bank:
    """Change a bank's name, description, background or policy (the policy is replaced whole)."""
    allowed = {"name", "description", "background", "policy"}
    texts = {name: fields[name] for name in ("description", "background") if name in fields}
    fields = {**fields, **text_defend(bank=bank, value=texts, field="bank", policy=fields.get("policy"))}
    changed = [name for name in fields if name in allowed]
    for name in changed:
        setattr(bank, name, fields[name])
    if changed:
        bank.save(update_fields=[*changed, "updated_at"])
    return bank


def bank_access_grant(*, bank: Bank, user, write: bool = False, actor: str = "system") -> None:
    """Let ``user`` read ``bank`` (and write it when ``write``); the change is audited."""
    from audit.services import audit_record

    assign_perm(BANK_READ_PERMISSION, user, bank)
    if write:
        assign_perm(BANK_WRITE_PERMISSION, user, bank)
    audit_record(
        tenant=bank.tenant_id,
        bank=bank,
        action="permission.granted",
        target=f"user:{user.get_username()}",
        details={"write": write},
        actor=actor,
    )


def bank_role_set(*, bank: Bank, user, role, actor: str = "system") -> None:
    """Give ``user`` exactly ``role`` (a ``banks.permissions.Role``) on ``bank``; ``Role.NONE`` removes access.

    The role is stored as guardian object permissions on the bank; the change is audited.
    """
    from guardian.shortcuts import remove_perm

    from audit.services import audit_record
    from banks.permissions import ROLE_PERMISSIONS, Role

    wanted = set(ROLE_PERMISSIONS.get(Role(role), ()))
    with transaction.atomic():
        for codename in ROLE_PERMISSIONS[Role.BANK_ADMIN]:
            if codename in wanted:
                assign_perm(f"banks.{codename}", user, bank)
            else:
                remove_perm(f"banks.{codename}", user, bank)
        audit_record(
            tenant=bank.tenant_id,
            bank=bank,
            action="role.set",
            target=f"user:{user.get_username()}",
            details={"role": Role(role).label},
            actor=actor,
        )
