"""The one permission path for people: tenant membership plus guardian object permissions.

Tenant admins reach every bank of their tenant; other members reach the banks they were
granted. Guardian is called with ``accept_global_perms=False`` and a queryset already
restricted to the user's tenants, so a model-wide permission never opens another tenant.
"""

from __future__ import annotations

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
