"""What a stored episode's facts may support: release from quarantine (a reviewed decision), and re-assessment
when the bank's trust tiers change."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from banks.policy import bank_policy
from beliefs.defense.evidence import fact_holds
from beliefs.models import Episode, Fact
from beliefs.services.consolidate import lock_bank_for_consolidation, slots_refresh
from beliefs.services.mental_models import mental_models_refresh
from memoryhub.exceptions import EpisodeNotFound

CHUNK = 500


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


def bank_evidence_reassess(*, bank: Bank) -> int:
    """Re-decide, under the bank's current trust tiers, which stored facts may be evidence; refresh what changed.

    Run at the end of a Memory Defense re-scan (which a change of trust tiers starts). Episodes are read a
    chunk at a time in id order; each chunk's changed facts and the beliefs of their slots are updated in one
    transaction, and mental models are rebuilt at the end. Returns how many facts changed.
    """
    policy = bank_policy(bank)
    changed_total, last_id = 0, 0
    while True:
        episodes = list(
            Episode.objects.filter(bank=bank, pk__gt=last_id, facts__isnull=False)
            .distinct()
            .order_by("id")
            .only("id", "content", "metadata", "provenance", "injection_flags", "quarantine_released_at")[:CHUNK]
        )
        if not episodes:
            break
        last_id = episodes[-1].pk
        facts_by_episode: dict[int, list] = {}
        for fact in Fact.objects.filter(bank=bank, episode_id__in=[e.pk for e in episodes]).only(
            "id", "episode_id", "quote_start", "quote_end", "quarantined", "subject_key", "predicate"
        ):
            facts_by_episode.setdefault(fact.episode_id, []).append(fact)
        flips: dict[bool, list[int]] = {True: [], False: []}
        slots = set()
        for episode in episodes:
            facts = facts_by_episode.get(episode.pk, [])
            holds = fact_holds(
                policy=policy,
                provenance=episode.provenance,
                content=episode.content,
                metadata=episode.metadata,
                injection_flags=episode.injection_flags,
                released=episode.quarantine_released_at is not None,
                quotes=[(f.quote_start, f.quote_end) for f in facts],
            )
            for fact, hold in zip(facts, holds, strict=True):
                if (hold is not None) != fact.quarantined:
                    flips[hold is not None].append(fact.pk)
                    slots.add((fact.subject_key, fact.predicate))
        if slots:
            with transaction.atomic():
                lock_bank_for_consolidation(bank)
                for quarantined, ids in flips.items():
                    Fact.objects.filter(pk__in=ids).update(quarantined=quarantined)
                slots_refresh(bank=bank, slots=slots)
            changed_total += len(flips[True]) + len(flips[False])
    if changed_total:
        mental_models_refresh(bank=bank)
    return changed_total
