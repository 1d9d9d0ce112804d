"""Reads behind the Memory Defense page: a bank's re-scans, the one under way, the episodes still quarantined."""

from __future__ import annotations

from django.db.models import QuerySet
from django.urls import reverse

from banks.hooks import PageNote
from banks.models import Bank
from beliefs.models import DefenseRescan, Episode


def defense_rescan_list(*, bank: Bank) -> QuerySet[DefenseRescan]:
    """The bank's re-scans, newest first."""
    return DefenseRescan.objects.filter(bank=bank).order_by("-created_at", "-id")


def defense_rescans(*, bank: Bank, limit: int = 20) -> list[DefenseRescan]:
    """The bank's ``limit`` newest re-scans, newest first."""
    return list(defense_rescan_list(bank=bank)[:limit])


def defense_rescan_note(*, bank: Bank) -> PageNote | None:
    """The bank policy page's line about a re-scan still under way (``banks.hooks`` page status)."""
    rescan = defense_rescan_list(bank=bank).first()
    if rescan is None or rescan.status == DefenseRescan.Status.DONE:
        return None
    url = reverse("beliefs_tenant:bank-defense", kwargs={"tenant_slug": bank.tenant.slug, "bank_slug": bank.slug})
    return PageNote(
        text=f"A Memory Defense re-scan is {rescan.status}: {rescan.scanned} of {rescan.total} episodes.", url=url
    )


def quarantined_episodes(*, bank: Bank) -> QuerySet[Episode]:
    """Flagged episodes nobody released (recall echoes excluded), newest first; their facts are not evidence."""
    flagged = Episode.objects.filter(bank=bank, quarantine_released_at__isnull=True, echo_of__isnull=True)
    return flagged.exclude(injection_flags=[]).order_by("-occurred_at", "-id")
