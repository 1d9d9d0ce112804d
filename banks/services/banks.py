"""Create tenants and banks, and grant people access to banks."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from guardian.shortcuts import assign_perm

from banks.models import Bank, Membership, Tenant
from memoryhub.exceptions import BankSlugTaken

BANK_READ_PERMISSION = "banks.view_bank"
BANK_WRITE_PERMISSION = "banks.change_bank"


def tenant_create(*, slug: str, name: str) -> Tenant:
    """Create a tenant."""
    return Tenant.objects.create(slug=slug, name=name)


def membership_set(*, tenant: Tenant, user, role: str, actor: str = "system") -> Membership:
    """Add ``user`` to ``tenant`` with ``role`` (or change their role); the change is audited."""
    from reviews.services.audit import audit_record

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


def bank_update(*, bank: Bank, **fields) -> Bank:
    """Change a bank's name, description, background or policy (the policy is replaced whole)."""
    allowed = {"name", "description", "background", "policy"}
    changed = [name for name in fields if name in allowed]
    for name in changed:
        setattr(bank, name, fields[name])
    if changed:
        bank.save(update_fields=[*changed, "updated_at"])
    return bank


def bank_access_grant(*, bank: Bank, user, write: bool = False, actor: str = "system") -> None:
    """Let ``user`` read ``bank`` (and write it when ``write``); the change is audited."""
    from reviews.services.audit import audit_record

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

    from banks.permissions import ROLE_PERMISSIONS, Role
    from reviews.services.audit import audit_record

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
