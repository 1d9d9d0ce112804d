"""Forget: remove memory from a bank."""

from __future__ import annotations

from django.db import transaction

from banks.models import Bank
from beliefs.models import Episode
from beliefs.services.indexing import episodes_unindex
from memoryhub.exceptions import EpisodeNotFound


def episode_delete(*, bank: Bank, episode_id: int) -> None:
    """Delete one episode of ``bank`` with its embedding and search vector."""
    with transaction.atomic():
        if not Episode.objects.select_for_update().filter(bank=bank, pk=episode_id).exists():
            raise EpisodeNotFound()
        episodes_unindex(bank=bank, episode_ids=[episode_id])
        Episode.objects.filter(bank=bank, pk=episode_id).delete()
