"""Forget: remove memory from a bank."""

from __future__ import annotations

from django.db import transaction

from banks.models import Bank
from beliefs.models import Episode
from memoryhub.exceptions import EpisodeNotFound


def episode_delete(*, bank: Bank, episode_id: int) -> None:
    """Delete one episode of ``bank`` with its embedding and search vector."""
    with transaction.atomic():
        deleted, _ = Episode.objects.filter(bank=bank, pk=episode_id).delete()
    if not deleted:
        raise EpisodeNotFound()
