"""Delete episodes and re-derive what they fed.

Deleting an episode deletes its facts and evidence (foreign keys cascade) and then
recomputes every belief those facts fed: proof counts drop, confidence is re-assessed,
a belief left without support is ``retracted``, and each change is versioned with the
cause ``evidence_removed``. Mental models are refreshed after commit.
"""

from __future__ import annotations

from django.db import transaction

from audit.services import audit_record
from banks.models import Bank
from beliefs.models import BeliefVersion, Episode, EpisodeEntity, Evidence, Fact
from beliefs.services.consolidate import lock_bank_for_consolidation, slots_refresh
from beliefs.services.indexing import episodes_unindex
from beliefs.services.rederive import beliefs_rederive
from memoryhub.exceptions import EpisodeNotFound
from memoryhub.queues import TaskName, enqueue_on_commit


def episode_delete(*, bank: Bank, episode_id: int, actor: str | None = None) -> None:
    """Delete one episode of ``bank`` with its embedding, search vector, facts and evidence; re-assess beliefs.

    Audited when done for ``actor``.
    """
    with transaction.atomic():
        if not Episode.objects.select_for_update().filter(bank=bank, pk=episode_id).exists():
            raise EpisodeNotFound()
        episodes_delete(bank=bank, episode_ids=[episode_id])
        if actor:
            audit_record(
                tenant=bank.tenant_id, bank=bank, action="episode.deleted", target=f"episode:{episode_id}", actor=actor
            )


def episodes_delete(*, bank: Bank, episode_ids: list[int], erase: bool = False) -> dict[str, int]:
    """Delete episodes of ``bank`` and re-derive what they fed; returns counts of what went.

    With ``erase``, beliefs left without any evidence also lose their wording (statement,
    subject, object and every version's statements become ``[erased]``), and mental models
    are rebuilt in the same transaction instead of after commit.
    """
    counts: dict[str, int] = {}
    with transaction.atomic():
        lock_bank_for_consolidation(bank)
        facts = Fact.objects.filter(bank=bank, episode_id__in=episode_ids)
        slots = set(facts.values_list("subject_key", "predicate").distinct())
        counts["facts"] = facts.count()
        counts["evidence"] = Evidence.objects.filter(bank=bank, episode_id__in=episode_ids).count()
        counts["entity_links"] = EpisodeEntity.objects.filter(bank=bank, episode_id__in=episode_ids).count()
        episodes_unindex(bank=bank, episode_ids=episode_ids)
        counts["episodes"] = Episode.objects.filter(bank=bank, pk__in=episode_ids).delete()[1].get("beliefs.Episode", 0)
        if erase:
            outcome, scrubbed, rebuilt = beliefs_rederive(bank=bank, slots=slots)
            counts["beliefs_retracted_and_scrubbed"] = scrubbed
            counts["mental_models_rebuilt"] = rebuilt
        else:
            outcome = slots_refresh(bank=bank, slots=slots, cause_hint=BeliefVersion.Cause.EVIDENCE_REMOVED)
            if outcome.changed or outcome.formed:
                enqueue_on_commit(TaskName.REFRESH_MENTAL_MODELS, bank_id=bank.pk, tenant_id=bank.tenant_id)
        counts["beliefs_reassessed"] = outcome.changed
    return counts
