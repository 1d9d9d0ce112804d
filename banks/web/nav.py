"""The dashboard's navigation: one list of entries, filtered by scope, role and whether the page exists.

An entry whose URL name does not resolve yet is skipped, so a new page appears in the
menu as soon as its URL is added. Bank entries are reversed with the tenant and bank
slugs, tenant entries with the tenant slug.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.urls import NoReverseMatch, reverse

from banks.permissions import Role


@dataclass(frozen=True)
class NavEntry:
    label: str
    url_name: str
    scope: str  # "bank" or "tenant"
    section: str  # "memory", "workloads" or "admin"
    min_role: Role = Role.VIEWER
    badge: str = ""  # name of a count the page context provides (e.g. "pending_reviews")


ENTRIES: list[NavEntry] = [
    NavEntry("Overview", "beliefs_web:bank-overview", "bank", "memory"),
    NavEntry("Review queue", "reviews_web:queue", "bank", "memory", badge="pending_reviews"),
    NavEntry("Beliefs", "beliefs_web:belief-list", "bank", "memory"),
    NavEntry("Episodes", "beliefs_web:episode-list", "bank", "memory"),
    NavEntry("Recall playground", "beliefs_web:recall", "bank", "memory"),
    NavEntry("Mental models", "beliefs_web:mental-model-list", "bank", "memory"),
    NavEntry("Anomaly suppressions", "workloads_web:suppression-log", "bank", "workloads"),
    NavEntry("Churn plays", "workloads_web:churn-plays", "bank", "workloads"),
    # Administration pages (banks/ views): bank settings need bank admin, tenant pages a tenant admin.
    NavEntry("Bank policy", "banks_web:bank-policy", "bank", "admin", Role.BANK_ADMIN),
    NavEntry("Members and roles", "banks_web:bank-members", "bank", "admin", Role.BANK_ADMIN),
    NavEntry("API keys", "banks_web:bank-api-keys", "bank", "admin", Role.BANK_ADMIN),
    NavEntry("Erasure requests", "beliefs_tenant:bank-erasure", "bank", "admin", Role.BANK_ADMIN),
    NavEntry("Memory Defense", "beliefs_tenant:bank-defense", "bank", "admin", Role.BANK_ADMIN),
    NavEntry("Audit log", "audit_web:bank-audit", "bank", "admin", Role.BANK_ADMIN),
    NavEntry("Tenant overview", "beliefs_tenant:tenant-home", "tenant", "tenant"),
    NavEntry("Tenant settings", "banks_web:tenant-settings", "tenant", "tenant", Role.TENANT_ADMIN),
    NavEntry("Tenant members", "banks_web:tenant-members", "tenant", "tenant", Role.TENANT_ADMIN),
    NavEntry("Tenant API keys", "banks_web:tenant-api-keys", "tenant", "tenant", Role.TENANT_ADMIN),
    NavEntry("Tenant erasure requests", "beliefs_tenant:tenant-erasure", "tenant", "tenant", Role.TENANT_ADMIN),
    NavEntry("Tenant audit log", "audit_web:tenant-audit", "tenant", "tenant", Role.TENANT_ADMIN),
]

# Badge name -> ``count(bank) -> int``, registered by the app that owns the count (reviews: pending items).
_BADGES: dict[str, Callable[..., int]] = {}


def register_nav_badge(name: str, count: Callable[..., int]) -> None:
    """Show ``count(bank=...)`` next to the entries whose ``badge`` is ``name`` (bank pages only)."""
    _BADGES[name] = count


def bank_badges(bank) -> dict[str, int]:
    return {name: count(bank=bank) for name, count in _BADGES.items()}


SECTION_TITLES = {"memory": "Memory", "workloads": "Workloads", "admin": "Bank admin", "tenant": "Tenant"}


@dataclass(frozen=True)
class NavLink:
    label: str
    url: str
    active: bool
    badge: int | None = None
    badge_name: str = ""  # the element id's suffix, so an htmx answer can update the count in place


def navigation(page, current_path: str, badges: dict[str, int] | None = None) -> list[tuple[str, list[NavLink]]]:
    """``[(section title, [links])]`` for ``page`` (a ``banks.web.access.Page``), in menu order."""
    badges = badges or {}
    sections: dict[str, list[NavLink]] = {}
    for entry in ENTRIES:
        if entry.scope == "bank":
            if page.bank is None or page.role < entry.min_role:
                continue
            kwargs = {"tenant_slug": page.tenant.slug, "bank_slug": page.bank.slug}
        else:
            if page.tenant_role < entry.min_role:
                continue
            kwargs = {"tenant_slug": page.tenant.slug}
        try:
            url = reverse(entry.url_name, kwargs=kwargs)
        except NoReverseMatch:
            continue  # the page is not built (yet)
        # The overview is the prefix of every bank page: only an exact match lights it.
        is_root = entry.url_name in {"beliefs_web:bank-overview", "beliefs_tenant:tenant-home"}
        active = current_path == url if is_root else current_path.startswith(url)
        link = NavLink(entry.label, url, active, badges.get(entry.badge), entry.badge)
        sections.setdefault(entry.section, []).append(link)
    return [(SECTION_TITLES[name], links) for name, links in sections.items()]
