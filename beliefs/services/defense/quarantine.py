"""Release an episode flagged at retain so its facts may become evidence (a reviewed decision)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from beliefs.models import Episode, Fact
from beliefs.services.consolidate import lock_bank_for_consolidation, slots_refresh
from memoryhub.exceptions import EpisodeNotFound


def episode_release(*, bank: Bank, episode_id: int, actor: str) -> Episode:
    """Clear the quarantine of one flagged episode and fold its facts into beliefs now; audited for ``actor``.

    Recall echoes stay out: they repeat what memory already said and are never evidence.
    """
    with transaction.atomic():
        episode = Episode.objects.select_for_update().filter(bank=bank, pk=episode_id).first()
        if episode is None:
            raise EpisodeNotFound()
        if episode.echo_of_id is not None or "recall_echo" in (episode.injection_flags or []):
            return episode
        lock_bank_for_consolidation(bank)
        episode.quarantine_released_at = timezone.now()
        episode.save(update_fields=["quarantine_released_at"])
        facts = Fact.objects.filter(bank=bank, episode=episode, quarantined=True)
        slots = set(facts.values_list("subject_key", "predicate"))
        facts.update(quarantined=False)
        slots_refresh(bank=bank, slots=slots)
        audit_record(
            tenant=bank.tenant_id, bank=bank, action="episode.released", target=f"episode:{episode_id}", actor=actor
        )
    return episode
