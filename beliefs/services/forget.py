"""Forget: remove memory from a bank, and everything derived from it.

Deleting an episode deletes its facts and evidence (foreign keys cascade) and then
recomputes every belief those facts fed: proof counts drop, confidence is re-assessed,
a belief left without support is ``retracted``, and each change is versioned with the
cause ``evidence_removed``. Mental models are refreshed after commit.
"""

from __future__ import annotations

from django.db import transaction

from banks.models import Bank
from beliefs.models import Episode, Fact
from beliefs.services.consolidate import lock_bank_for_consolidation, slots_refresh
from beliefs.services.indexing import episodes_unindex
from memoryhub.exceptions import EpisodeNotFound


def episode_delete(*, bank: Bank, episode_id: int) -> None:
    """Delete one episode of ``bank`` with its embedding, search vector, facts and evidence; re-assess beliefs."""
    with transaction.atomic():
        if not Episode.objects.select_for_update().filter(bank=bank, pk=episode_id).exists():
            raise EpisodeNotFound()
        episodes_delete(bank=bank, episode_ids=[episode_id])


def episodes_delete(*, bank: Bank, episode_ids: list[int]) -> int:
    """Delete episodes of ``bank`` and re-derive what they fed. Runs inside the caller's transaction."""
    from beliefs.models import BeliefVersion
    from beliefs.tasks import refresh_mental_models_task

    with transaction.atomic():
        lock_bank_for_consolidation(bank)
        slots = set(
            Fact.objects.filter(bank=bank, episode_id__in=episode_ids)
            .values_list("subject_key", "predicate")
            .distinct()
        )
        episodes_unindex(bank=bank, episode_ids=episode_ids)
        deleted, _ = Episode.objects.filter(bank=bank, pk__in=episode_ids).delete()
        outcome = slots_refresh(bank=bank, slots=slots, cause_hint=BeliefVersion.Cause.EVIDENCE_REMOVED)
        if outcome.changed or outcome.formed:
            bank_id = bank.pk
            transaction.on_commit(lambda: refresh_mental_models_task.delay(bank_id=bank_id))
    return deleted
