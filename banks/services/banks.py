"""Create tenants and banks, change their settings, and manage who may reach them.

Each change a person can make in the dashboard or through the API goes through one
function here, which also writes the audit event: both front ends leave the same rows.
Memberships, bank permissions and new accounts are written through owner functions
(``banks.services.owner_functions``), scoped to the tenant they change; a person who leaves
a tenant or loses a role loses the API keys they issued with it (``api_keys_revoke_created_by``).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, transaction
from django.utils import timezone

from banks.hooks import Followup, content_counts, policy_changed
from banks.models import Bank, Membership, Tenant
from banks.services import owner_functions
from banks.services.api_keys import api_keys_revoke_created_by
from memoryhub import metrics
from memoryhub.exceptions import BankSlugTaken
from memoryhub.tenancy import tenant_scope
from memoryhub.text_defense import text_defend

BANK_READ_PERMISSION = "banks.view_bank"
BANK_WRITE_PERMISSION = "banks.change_bank"


def tenant_create(*, slug: str, name: str, actor: str | None = None) -> Tenant:
    """Create a tenant; audited as ``tenant.created`` in it when ``actor`` is given."""
    from audit.services import audit_record

    tenant = Tenant.objects.create(slug=slug, name=name)
    if actor is not None:
        with tenant_scope(tenant.pk):
            audit_record(actor=actor, tenant=tenant, action="tenant.created", target=f"tenant:{tenant.slug}")
    return tenant


def membership_set(*, tenant: Tenant, user, role: str, actor: str = "system") -> Membership:
    """Add ``user`` to ``tenant`` with ``role`` (or change their role); the change is audited.

    A tenant admin made a member loses the API keys they issued in the tenant (revoked, each audited).
    """
    from audit.services import audit_record

    role = Membership.Role(role)
    with owner_functions.tenant_writes(tenant.pk):
        previous = owner_functions.call(tenant.pk, "memoryhub_membership_set", tenant.pk, user.pk, role.value)
        audit_record(
            tenant=tenant,
            action="membership.set",
            target=f"user:{user.get_username()}",
            details={"role": role.value},
            actor=actor,
        )
        if previous == Membership.Role.ADMIN and role != Membership.Role.ADMIN:
            reason = f"creator user:{user.get_username()} is no longer a tenant admin"
            api_keys_revoke_created_by(tenant=tenant, user=user, actor=actor, reason=reason)
        return Membership.objects.get(tenant=tenant, user=user)


def user_create(*, tenant: Tenant, username: str, email: str, password: str, actor: str = "system"):
    """Create an account (never staff or superuser) for a new member of ``tenant``; audited in the tenant.

    The caller adds the membership; the account alone reaches nothing.
    """
    from audit.services import audit_record

    users = get_user_model()
    username = users.normalize_username(username)
    with owner_functions.tenant_writes(tenant.pk):
        user_id = owner_functions.call(tenant.pk, "memoryhub_user_create", username,
                                       users.objects.normalize_email(email or ""), make_password(password))  # fmt: skip
        audit_record(tenant=tenant, action="user.created", target=f"user:{username}", actor=actor)
    return users.objects.get(pk=user_id)


def bank_create(
    *,
    tenant: Tenant,
    slug: str,
    name: str = "",
    description: str = "",
    background: str = "",
    policy: dict | None = None,
    created_by=None,
    actor: str | None = None,
) -> Bank:
    """Create a bank in ``tenant``; its creator (a person) may read and write it.

    Audited as ``bank.created`` when ``actor`` is given (the API and the tenant settings page).
    """
    from audit.services import audit_record

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
    if actor is not None:
        audit_record(actor=actor, tenant=tenant, bank=bank, action="bank.created", target=f"bank:{bank.slug}")
    return bank


_UNCHANGED = object()


def tenant_update(
    *, tenant: Tenant, name: str | None = None, max_api_key_lifetime_days=_UNCHANGED, actor: str = "system"
) -> Tenant:
    """Rename a tenant (its slug, part of every URL, stays) or set its keys' longest lifetime (None: no limit).

    Audited with the fields changed. A new lifetime bounds keys issued from now on; existing keys keep theirs.
    """
    from audit.services import audit_record

    changed = []
    if name is not None and name != tenant.name:
        tenant.name = name
        changed.append("name")
    if max_api_key_lifetime_days is not _UNCHANGED and max_api_key_lifetime_days != tenant.max_api_key_lifetime_days:
        tenant.max_api_key_lifetime_days = max_api_key_lifetime_days
        changed.append("max_api_key_lifetime_days")
    if changed:
        tenant.full_clean(exclude=["slug", "name"])  # the lifetime's bounds (1 day to 10 years)
        details = {"fields": changed}
        if "max_api_key_lifetime_days" in changed:
            details["max_api_key_lifetime_days"] = tenant.max_api_key_lifetime_days
        with owner_functions.tenant_writes(tenant.pk):  # row security: a session changes its own tenant only
            tenant.save(update_fields=changed)
            audit_record(tenant=tenant, action="tenant.updated", target=f"tenant:{tenant.slug}", details=details,
                         actor=actor)  # fmt: skip
    return tenant


def tenant_break_glass(*, tenant: Tenant, user, reason: str, actor: str) -> Membership:
    """An installation operator makes themselves tenant admin of ``tenant``, for the ``reason`` they give.

    The one way staff take a role in a tenant: the tenant's audit log shows ``staff.break_glass`` with the
    reason (and the membership change), so its admins see who came in and why.
    """
    from audit.services import audit_record

    reason = " ".join(reason.split())
    if not reason:
        raise ValueError("breaking glass needs a reason")
    with owner_functions.tenant_writes(tenant.pk):
        audit_record(tenant=tenant, action="staff.break_glass", target=f"user:{user.get_username()}",
                     details={"reason": reason[:500], "role": Membership.Role.ADMIN.value}, actor=actor)  # fmt: skip
        return membership_set(tenant=tenant, user=user, role=Membership.Role.ADMIN, actor=actor)


def membership_remove(*, tenant: Tenant, user, actor: str = "system") -> bool:
    """Take ``user`` out of ``tenant`` with every role they held on its banks and the API keys they issued there;
    audited. False if not a member."""
    from audit.services import audit_record

    with owner_functions.tenant_writes(tenant.pk):
        roles = owner_functions.call(tenant.pk, "memoryhub_membership_remove", tenant.pk, user.pk)
        if roles is None:
            return False
        audit_record(tenant=tenant, action="membership.removed", target=f"user:{user.get_username()}",
                     details={"bank_permissions_removed": roles}, actor=actor)  # fmt: skip
        api_keys_revoke_created_by(tenant=tenant, user=user, actor=actor,
                                   reason=f"creator user:{user.get_username()} left the tenant")  # fmt: skip
    return True


@dataclass(frozen=True)
class BankChange:
    bank: Bank
    followups: list[Followup]  # work the change started, e.g. a Memory Defense re-scan


def bank_settings_change(*, bank: Bank, actor: str, **fields) -> BankChange:
    """Change a bank's name, description, background or policy (validated), run follow-ups, audit.

    What ``PATCH banks/{bank}/`` and the dashboard's policy page both call: the policy is
    replaced whole and checked by ``banks.policy.validate_policy``; the registered policy-change
    handlers then run (``banks.hooks``: the engine re-scans stored episodes when Memory Defense
    tightened); one ``bank.updated`` event records the fields sent and the new policy.
    """
    from audit.services import audit_record
    from banks.policy import bank_policy, validate_policy

    if "policy" in fields:
        validate_policy(fields["policy"])
    before = bank_policy(bank)
    bank = bank_update(bank=bank, **fields)
    followups = policy_changed(bank=bank, before=before, after=bank_policy(bank)) if "policy" in fields else []
    audit_record(
        actor=actor,
        tenant=bank.tenant_id,
        bank=bank,
        action="bank.updated",
        target=f"bank:{bank.slug}",
        details={"fields": sorted(fields), "policy": bank.policy if "policy" in fields else None},
    )
    return BankChange(bank=bank, followups=followups)


def bank_delete(*, bank: Bank, actor: str) -> dict:
    """Delete a whole bank with everything in it for ``actor``; returns (and audits) a receipt of what went.

    The receipt counts what the bank held (``banks.hooks`` content counters: episodes, facts,
    beliefs, mental models), never its content; the rows go with the bank (foreign keys cascade).
    """
    from audit.services import audit_record

    with transaction.atomic():
        receipt = {
            "bank": bank.slug,
            "removed": content_counts(bank=bank),
            "requested_by": actor[:200],
            "completed_at": timezone.now().isoformat(),
        }
        tenant_id, slug = bank.tenant_id, bank.slug
        bank.delete()
        audit_record(tenant=tenant_id, action="bank.deleted", target=f"bank:{slug}", details=receipt, actor=actor)
    metrics.observe_erasure(receipt["removed"].get("episodes", 0))
    return receipt


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

    codenames = [BANK_READ_PERMISSION, BANK_WRITE_PERMISSION] if write else [BANK_READ_PERMISSION]
    with owner_functions.tenant_writes(bank.tenant_id):
        owner_functions.call(bank.tenant_id, "memoryhub_bank_permissions_set", bank.pk, user.pk,
                             [c.split(".", 1)[1] for c in codenames], [])  # fmt: skip
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

    The role is stored as guardian object permissions on the bank; the change is audited. A bank admin given a
    lower role loses the keys they issued for the bank (revoked, each audited).
    """
    from audit.services import audit_record
    from banks.models import BankUserObjectPermission
    from banks.permissions import ROLE_PERMISSIONS, Role, role_from_codenames

    wanted = set(ROLE_PERMISSIONS.get(Role(role), ()))
    every = ROLE_PERMISSIONS[Role.BANK_ADMIN]
    with owner_functions.tenant_writes(bank.tenant_id):
        held = set(
            BankUserObjectPermission.objects.filter(content_object=bank, user=user).values_list(
                "permission__codename", flat=True
            )
        )
        owner_functions.call(bank.tenant_id, "memoryhub_bank_permissions_set", bank.pk, user.pk,
                             [c for c in every if c in wanted], [c for c in every if c not in wanted])  # fmt: skip
        audit_record(
            tenant=bank.tenant_id,
            bank=bank,
            action="role.set",
            target=f"user:{user.get_username()}",
            details={"role": Role(role).label},
            actor=actor,
        )
        if role_from_codenames(held) >= Role.BANK_ADMIN > Role(role):
            reason = f"creator user:{user.get_username()} is no longer bank admin"
            api_keys_revoke_created_by(tenant=bank.tenant, user=user, bank=bank, actor=actor, reason=reason)
