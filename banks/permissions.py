"""The one permission path for people: tenant membership plus guardian object permissions.

Tenant admins reach every bank of their tenant; other members reach the banks they were
granted. Guardian is called with ``accept_global_perms=False`` and a queryset already
restricted to the user's tenants, so a model-wide permission never opens another tenant.
"""

from __future__ import annotations

import enum

from django.db.models import Q, QuerySet
from guardian.shortcuts import get_objects_for_user

from banks.models import Bank, Membership


def banks_visible_to(user, perm: str = "banks.view_bank") -> QuerySet[Bank]:
    """Banks ``user`` holds ``perm`` on; empty for anonymous users. Never crosses tenants."""
    if user is None or not user.is_authenticated or not getattr(user, "pk", None):
        return Bank.objects.none()
    memberships = Membership.objects.filter(user=user)
    member_tenants = memberships.values("tenant_id")
    admin_tenants = memberships.filter(role=Membership.Role.ADMIN).values("tenant_id")
    granted = get_objects_for_user(
        user,
        perm,
        klass=Bank.objects.filter(tenant_id__in=member_tenants),
        accept_global_perms=False,
        with_superuser=False,
    )
    return Bank.objects.filter(Q(tenant_id__in=admin_tenants) | Q(pk__in=granted.values("pk")))


def tenants_administered_by(user):
    """Tenants where ``user`` is an admin."""
    from banks.models import Tenant

    if user is None or not user.is_authenticated or not getattr(user, "pk", None):
        return Tenant.objects.none()
    return Tenant.objects.filter(memberships__user=user, memberships__role=Membership.Role.ADMIN)


class Role(enum.IntEnum):
    """What a person may do in one bank; each role includes the ones below it.

    Viewer reads; reviewer also decides review items (accept, reject, overturn); bank admin
    also changes the bank (policy, keys for the bank, erasure in the bank); a tenant admin
    is bank admin of every bank of the tenant and manages the tenant itself.
    """

    NONE = 0
    VIEWER = 1
    REVIEWER = 2
    BANK_ADMIN = 3
    TENANT_ADMIN = 4

    @property
    def label(self) -> str:
        return self.name.replace("_", " ").lower()


#: The guardian permissions (codenames on ``Bank``) each grantable role holds.
ROLE_PERMISSIONS: dict[Role, tuple[str, ...]] = {
    Role.VIEWER: ("view_bank",),
    Role.REVIEWER: ("view_bank", "review_bank"),
    Role.BANK_ADMIN: ("view_bank", "review_bank", "change_bank", "admin_bank"),
}


def role_from_codenames(codenames: set[str]) -> Role:
    """The highest role whose permissions ``codenames`` all include."""
    for role in (Role.BANK_ADMIN, Role.REVIEWER, Role.VIEWER):
        if set(ROLE_PERMISSIONS[role]) <= codenames:
            return role
    return Role.NONE


def bank_roles(user, tenant, membership: Membership | None = None) -> dict[int, Role]:
    """``{bank_id: role}`` for every bank of ``tenant`` that ``user`` may read (empty for non-members).

    Two or three queries whatever the number of banks; guardian's user and group
    permission rows are read directly (direct-FK tables), never global permissions.
    """
    from banks.models import BankGroupObjectPermission, BankUserObjectPermission

    if user is None or not user.is_authenticated or not getattr(user, "pk", None):
        return {}
    if membership is None or membership.user_id != user.pk or membership.tenant_id != tenant.pk:
        membership = Membership.objects.filter(user=user, tenant=tenant).only("role", "user_id", "tenant_id").first()
    if membership is None:
        return {}
    if membership.role == Membership.Role.ADMIN:
        return {pk: Role.TENANT_ADMIN for pk in Bank.objects.filter(tenant=tenant).values_list("pk", flat=True)}
    granted: dict[int, set[str]] = {}
    rows = BankUserObjectPermission.objects.filter(user=user, content_object__tenant=tenant).values_list(
        "content_object_id", "permission__codename"
    )
    group_rows = BankGroupObjectPermission.objects.filter(group__user=user, content_object__tenant=tenant).values_list(
        "content_object_id", "permission__codename"
    )
    for bank_id, codename in [*rows, *group_rows]:
        granted.setdefault(bank_id, set()).add(codename)
    roles = {bank_id: role_from_codenames(codenames) for bank_id, codenames in granted.items()}
    return {bank_id: role for bank_id, role in roles.items() if role > Role.NONE}
