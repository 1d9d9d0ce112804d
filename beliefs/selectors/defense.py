"""Reads behind the Memory Defense page: a bank's re-scans and the episodes still quarantined."""

from __future__ import annotations

from django.db.models import QuerySet

from banks.models import Bank
from beliefs.models import DefenseRescan, Episode


def defense_rescans(*, bank: Bank, limit: int = 20) -> list[DefenseRescan]:
    """The bank's newest re-scans, newest first."""
    return list(DefenseRescan.objects.filter(bank=bank).order_by("-created_at", "-id")[:limit])


def quarantined_episodes(*, bank: Bank) -> QuerySet[Episode]:
    """Flagged episodes nobody released (recall echoes excluded), newest first; their facts are not evidence."""
    flagged = Episode.objects.filter(bank=bank, quarantine_released_at__isnull=True, echo_of__isnull=True)
    return flagged.exclude(injection_flags=[]).order_by("-occurred_at", "-id")
