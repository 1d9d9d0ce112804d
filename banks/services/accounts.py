"""People's credentials: first passwords, the change they force, and invitations to a tenant.

- A **first password** (generated for someone else, e.g. a new tenant's first admin on the
  staff page) passes the password validators like any other, is shown once, and must be
  replaced at its holder's first sign-in (``PasswordChangeRequired``; ``banks.sessions``
  sends them to the password page until they did).
- An **invitation** is how a tenant admin adds a person: it makes a one-time link (only its
  digest is stored) that the invitee opens to accept, with their account or a new one they
  create there. Nobody joins a tenant without accepting, and creating an invitation looks
  the same whether or not an account of that name exists anywhere in the installation.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from banks.models import Invitation, Membership, PasswordChangeRequired, Tenant
from banks.services.banks import membership_set, tenant_create, user_create
from memoryhub.tenancy import rls_bypass, tenant_scope

INVITATION_LIFETIME = timedelta(days=7)


def _first_password(user) -> str:
    """A random password that passes the validators for ``user``."""
    for _ in range(10):
        password = secrets.token_urlsafe(15)  # 20 characters, about 120 bits
        try:
            password_validation.validate_password(password, user)
        except ValidationError:
            continue
        return password
    raise RuntimeError("could not generate a first password that passes the validators")  # pragma: no cover


def first_password_issue(*, user) -> str:
    """Give ``user`` a new random password that passes the validators; they must change it at first sign-in.

    Saved as the maintenance role: the request role may not write passwords.
    """
    password = _first_password(user)
    user.set_password(password)
    with rls_bypass():
        user.save(update_fields=["password"])
        PasswordChangeRequired.objects.get_or_create(user=user)
    return password


def account_create_with_first_password(*, tenant: Tenant, username: str, email: str = "", actor: str = "system"):
    """A new account for ``tenant``'s first admin and its first password (shown once by the caller; to be changed at
    first sign-in). Created through the owner function, in the tenant's scope (``banks.services.banks.user_create``).
    """
    password = _first_password(get_user_model()(username=username, email=email))
    user = user_create(tenant=tenant, username=username, email=email, password=password, actor=actor)
    PasswordChangeRequired.objects.get_or_create(user=user)
    return user, password


@dataclass(frozen=True)
class OpenedTenant:
    tenant: Tenant
    admin: object  # the first admin's account
    first_password: str | None  # set when the account was made here: shown once by the caller, never stored


def tenant_open(*, slug: str, name: str, actor: str, admin=None, admin_username: str = "", admin_email: str = ""):
    """A new tenant with its first admin, in one transaction; every step audited in the tenant.

    The admin is the existing account ``admin``, else a new account ``admin_username`` with a first password
    (``account_create_with_first_password``). Raises ``IntegrityError`` when the slug is taken, leaving nothing.
    """
    with transaction.atomic():
        tenant = tenant_create(slug=slug, name=name, actor=actor)
        with tenant_scope(tenant.pk):
            password = None
            if admin is None:
                admin, password = account_create_with_first_password(
                    tenant=tenant, username=admin_username, email=admin_email, actor=actor
                )
            membership_set(tenant=tenant, user=admin, role=Membership.Role.ADMIN, actor=actor)
    return OpenedTenant(tenant=tenant, admin=admin, first_password=password)


def password_change_required(*, user) -> bool:
    return bool(getattr(user, "pk", None)) and PasswordChangeRequired.objects.filter(user_id=user.pk).exists()


def password_change_complete(*, user) -> None:
    """``user`` chose their own password: no change is required of them any more."""
    PasswordChangeRequired.objects.filter(user_id=user.pk).delete()


@dataclass(frozen=True)
class IssuedInvitation:
    invitation: Invitation
    token: str  # part of the link, shown once, never stored


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invitation_create(*, tenant: Tenant, invited_as: str, role: str, created_by=None, actor: str = "system"):
    """An open invitation to ``tenant`` with ``role`` and its one-time token; audited.

    ``invited_as`` (the name or e-mail the admin typed) is a note shown to the invitee; it is
    never looked up, so the answer is the same whether or not such an account exists.
    """
    from audit.services import audit_record

    token = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(
        tenant=tenant,
        role=role,
        invited_as=invited_as.strip()[:254],
        token_hash=_digest(token),
        created_by=created_by if getattr(created_by, "pk", None) else None,
        expires_at=timezone.now() + INVITATION_LIFETIME,
    )
    audit_record(tenant=tenant, action="invitation.created", target=f"invitation:{invitation.pk}",
                 details={"role": role}, actor=actor)  # fmt: skip
    return IssuedInvitation(invitation=invitation, token=token)


def invitation_find(*, token: str) -> Invitation | None:
    """The open (not accepted, declined, withdrawn or expired) invitation of ``token``, or ``None``."""
    if not token or len(token) > 128:
        return None
    invitation = Invitation.objects.select_related("tenant").filter(token_hash=_digest(token)).first()
    return invitation if invitation is not None and invitation.is_open else None


def invitation_accept(*, invitation: Invitation, user) -> Membership | None:
    """``user`` accepts: they join the tenant with the invitation's role; audited. ``None`` if no longer open."""
    from audit.services import audit_record

    actor = f"user:{user.get_username()}"
    with transaction.atomic(), tenant_scope(invitation.tenant_id):
        locked = Invitation.objects.select_for_update().filter(pk=invitation.pk).first()
        if locked is None or not locked.is_open:
            return None
        Invitation.objects.filter(pk=locked.pk).update(accepted_at=timezone.now(), accepted_by=user)
        membership = membership_set(tenant=invitation.tenant, user=user, role=locked.role, actor=actor)
        audit_record(tenant=invitation.tenant_id, action="invitation.accepted", target=f"invitation:{locked.pk}",
                     details={"role": locked.role}, actor=actor)  # fmt: skip
    return membership


def invitation_close(*, invitation: Invitation, actor: str, action: str = "invitation.declined") -> bool:
    """Decline (the invitee) or withdraw (a tenant admin: ``invitation.withdrawn``) an open invitation; audited."""
    from audit.services import audit_record

    with transaction.atomic(), tenant_scope(invitation.tenant_id):
        closed = Invitation.objects.filter(pk=invitation.pk, accepted_at__isnull=True, closed_at__isnull=True).update(
            closed_at=timezone.now()
        )
        if closed:
            audit_record(tenant=invitation.tenant_id, action=action, target=f"invitation:{invitation.pk}",
                         actor=actor)  # fmt: skip
    return bool(closed)
