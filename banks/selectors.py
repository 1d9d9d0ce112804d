"""Read queries over tenants, banks, members, invitations and API keys, for the pages and the API.

Each selector is given what the caller is already authorised for (a ``tenant`` or a ``bank``,
resolved by ``banks.scoping`` or ``banks.web.access``) and reads only inside it; the lists own
their ``select_related`` and order. ``banks.web.access`` and ``banks.scoping`` resolve the request
itself (who the caller is, which tenant and bank the URL names) and keep their own lookups.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from banks.models import ApiKey, Bank, BankUserObjectPermission, Invitation, Membership, Tenant
from banks.permissions import Role, role_from_codenames


def tenants_of_user(*, user) -> QuerySet[Tenant]:
    """The tenants ``user`` is a member of, by slug."""
    return Tenant.objects.filter(memberships__user=user).order_by("slug")


def tenant_ids_of_user(*, user) -> set[int]:
    return set(Membership.objects.filter(user=user).values_list("tenant_id", flat=True))


def tenant_list() -> QuerySet[Tenant]:
    """Every tenant of the installation, by slug (operators and the database CLI only)."""
    return Tenant.objects.order_by("slug")


def tenant_by_slug(*, slug: str) -> Tenant | None:
    return Tenant.objects.filter(slug=slug).first()


def tenant_get(*, tenant_id: int | None) -> Tenant | None:
    return Tenant.objects.filter(pk=tenant_id).first() if tenant_id is not None else None


def tenant_slug_taken(*, slug: str) -> bool:
    return Tenant.objects.filter(slug=slug).exists()


def tenants_overview() -> list[Tenant]:
    """Every tenant of the installation (operators only) with its bank, member and admin counts, by slug."""
    admins = Q(memberships__role=Membership.Role.ADMIN)
    return list(
        Tenant.objects.annotate(
            bank_count=Count("banks", distinct=True),
            member_count=Count("memberships", distinct=True),
            admin_count=Count("memberships", filter=admins, distinct=True),
        ).order_by("slug")
    )


def tenant_banks_overview(*, tenant: Tenant) -> list[Bank]:
    """The tenant's banks by slug, each with ``keys`` (live API keys) and ``people`` (holders of a bank role)."""
    return list(
        Bank.objects.filter(tenant=tenant)
        .annotate(
            keys=Count("api_keys", filter=Q(api_keys__revoked_at__isnull=True), distinct=True),
            people=Count("bankuserobjectpermission__user", distinct=True),
        )
        .order_by("slug")
    )


def tenant_bank_get(*, tenant: Tenant, slug: str) -> Bank | None:
    return Bank.objects.filter(tenant=tenant, slug=slug).first()


def tenant_member_count(*, tenant: Tenant) -> int:
    return Membership.objects.filter(tenant=tenant).count()


def tenant_members(*, tenant: Tenant) -> list[Membership]:
    """The tenant's memberships with their accounts, by user name."""
    return list(Membership.objects.filter(tenant=tenant).select_related("user").order_by("user__username"))


def tenant_member_get(*, tenant: Tenant, user_id) -> Membership | None:
    """The membership (with its account) of user ``user_id`` in ``tenant``; ``None`` for a non-member or a bad id."""
    if not str(user_id).isdigit():
        return None
    return Membership.objects.filter(tenant=tenant, user_id=int(user_id)).select_related("user").first()


@dataclass(frozen=True)
class MemberCounts:
    banks: dict[int, int]  # user id → banks they may read
    keys: dict[int, int]  # user id → live API keys they issued


def tenant_member_counts(*, tenant: Tenant) -> MemberCounts:
    """Per member of ``tenant``: how many of its banks they may read and how many live keys they issued."""
    readable = BankUserObjectPermission.objects.filter(content_object__tenant=tenant, permission__codename="view_bank")
    keys = ApiKey.objects.filter(tenant=tenant, revoked_at__isnull=True, created_by__isnull=False)
    return MemberCounts(
        banks=dict(readable.values_list("user_id").annotate(n=Count("content_object", distinct=True)).order_by()),
        keys=dict(keys.values_list("created_by").annotate(n=Count("id")).order_by()),
    )


@dataclass(frozen=True)
class BankPeople:
    admins: list  # tenant admins: bank admin of every bank already
    holders: list  # (user, Role) for members holding a role on the bank
    others: list  # members without a role on the bank


def bank_people(*, bank: Bank) -> BankPeople:
    """The members of ``bank``'s tenant, split into tenant admins, holders of a bank role, and the rest."""
    granted: dict[int, set[str]] = {}
    rows = BankUserObjectPermission.objects.filter(content_object=bank).values_list("user_id", "permission__codename")
    memberships = Membership.objects.filter(tenant_id=bank.tenant_id).select_related("user").order_by("user__username")
    for user_id, codename in rows:
        granted.setdefault(user_id, set()).add(codename)
    people = BankPeople(admins=[], holders=[], others=[])
    for m in memberships:
        role = role_from_codenames(granted.get(m.user_id, set()))
        if m.role == Membership.Role.ADMIN:
            people.admins.append(m.user)
        elif role > Role.NONE:
            people.holders.append((m.user, role))
        else:
            people.others.append(m.user)
    return people


def invitations_open(*, tenant: Tenant) -> QuerySet[Invitation]:
    """The tenant's invitations still waiting for an answer, newest first, with who made them."""
    return (
        Invitation.objects.filter(
            tenant=tenant, accepted_at__isnull=True, closed_at__isnull=True, expires_at__gt=timezone.now()
        )
        .select_related("created_by")
        .order_by("-created_at", "-id")
    )


def invitation_get(*, tenant: Tenant, invitation_id) -> Invitation | None:
    """Invitation ``invitation_id`` of ``tenant`` (open or not); ``None`` for another tenant's or a bad id."""
    if not str(invitation_id).isdigit():
        return None
    return Invitation.objects.filter(tenant=tenant, pk=int(invitation_id)).first()


def api_keys_of(*, tenant: Tenant, bank: Bank | None = None) -> QuerySet[ApiKey]:
    """The tenant's API keys (tenant-wide and bank-limited), or only those limited to ``bank``; newest first."""
    keys = ApiKey.objects.filter(tenant=tenant)
    if bank is not None:
        keys = keys.filter(bank=bank)
    return keys.select_related("bank", "created_by", "created_by_key").order_by("-created_at", "-id")


def api_key_by_prefix(*, tenant: Tenant, prefix: str, bank: Bank | None = None) -> ApiKey | None:
    """The key of ``tenant`` (limited to ``bank`` when given) with this prefix, revoked or not."""
    keys = ApiKey.objects.filter(tenant=tenant, prefix=prefix)
    return keys.filter(bank=bank).first() if bank is not None else keys.first()
