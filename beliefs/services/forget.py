"""Forget: remove memory from a bank, and everything derived from it.

Three reaches: one episode, every episode of a subject (an ``ErasureRequest``, in one
bank or across the tenant, leaving a hashed tombstone and a receipt) and a whole bank.

Deleting an episode deletes its facts and evidence (foreign keys cascade) and then
recomputes every belief those facts fed: proof counts drop, confidence is re-assessed,
a belief left without support is ``retracted``, and each change is versioned with the
cause ``evidence_removed``. Mental models are refreshed after commit.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from banks.models import Bank
from beliefs.models import Episode, EpisodeEntity, ErasureRequest, Evidence, Fact, RetainBatch, Tombstone
from beliefs.services.consolidate import lock_bank_for_consolidation, slots_refresh
from beliefs.services.erasure_mentions import mentions_erase
from beliefs.services.indexing import episodes_unindex
from beliefs.services.mental_models import mental_models_refresh
from beliefs.services.tombstones import subject_hash
from memoryhub import metrics
from memoryhub.embeddings import embed_texts
from memoryhub.exceptions import EpisodeNotFound
from memoryhub.queues import TaskName, enqueue_on_commit
from reviews.services.audit import audit_record

ERASED = "[erased]"


def episode_delete(*, bank: Bank, episode_id: int) -> None:
    """Delete one episode of ``bank`` with its embedding, search vector, facts and evidence; re-assess beliefs."""
    with transaction.atomic():
        if not Episode.objects.select_for_update().filter(bank=bank, pk=episode_id).exists():
            raise EpisodeNotFound()
        episodes_delete(bank=bank, episode_ids=[episode_id])


def episodes_delete(*, bank: Bank, episode_ids: list[int], erase: bool = False) -> dict[str, int]:
    """Delete episodes of ``bank`` and re-derive what they fed; returns counts of what went.

    With ``erase``, beliefs left without any evidence also lose their wording (statement,
    subject, object and every version's statements become ``[erased]``), and mental models
    are rebuilt in the same transaction instead of after commit.
    """
    from beliefs.models import BeliefVersion

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


def beliefs_rederive(*, bank: Bank, slots: set) -> tuple:
    """After evidence was removed or rewritten: re-assess the slots' beliefs, strip the wording of those left
    without support, and rebuild mental models now. Returns (slot outcome, beliefs scrubbed, models rebuilt)."""
    from beliefs.models import BeliefVersion

    outcome = slots_refresh(bank=bank, slots=slots, cause_hint=BeliefVersion.Cause.EVIDENCE_REMOVED)
    scrubbed = _scrub_unsupported(bank, outcome.belief_ids)
    return outcome, scrubbed, mental_models_refresh(bank=bank)


def _scrub_unsupported(bank: Bank, belief_ids) -> int:
    """Beliefs with no evidence left keep their row (status ``retracted``) but none of the erased wording."""
    from beliefs.models import Belief, BeliefVersion

    orphans = list(
        Belief.objects.filter(bank=bank, pk__in=belief_ids, status=Belief.Status.RETRACTED, evidence__isnull=True)
    )
    if not orphans:
        return 0
    vector = embed_texts([ERASED])[0]
    for belief in orphans:
        belief.statement = belief.subject = belief.object = ERASED
        belief.subject_key = belief.object_key = belief.key = f"erased-{belief.pk}"
        belief.embedding = vector
        belief.save()
    BeliefVersion.objects.filter(belief__in=orphans).update(old_statement=ERASED, new_statement=ERASED)
    return len(orphans)


def erasure_request_create(
    *, tenant, bank: Bank | None, subject: str, requested_by: str, aliases: list[str] | None = None
) -> ErasureRequest:
    """Record an erasure of ``subject`` (in ``bank``, or the whole tenant when ``bank`` is None) and queue it.

    ``aliases``: other names and identifiers of the subject (e-mail, phone, account id) whose
    mentions in other subjects' memory are redacted too.
    """
    request = ErasureRequest.objects.create(
        tenant=tenant,
        bank=bank,
        scope="bank" if bank else "tenant",
        subject=subject,
        aliases=list(aliases or []),
        subject_hash=subject_hash(tenant_id=tenant.pk, subject=subject),
        requested_by=requested_by[:200],
    )
    enqueue_on_commit(TaskName.RUN_ERASURE, request_id=request.pk, tenant_id=tenant.pk)
    return request


def erasure_request_create_and_audit(
    *, request=None, tenant, bank: Bank | None, subject: str, requested_by: str, **options
) -> ErasureRequest:
    """File an erasure request (``erasure_request_create``) and audit it: the API and the erasure page call this."""
    erasure = erasure_request_create(tenant=tenant, bank=bank, subject=subject, requested_by=requested_by, **options)
    audit_record(request=request, tenant=tenant, bank=bank, action="erasure.requested", target=f"erasure:{erasure.pk}")
    return erasure


def erasure_request_run(*, request_id: int) -> ErasureRequest:
    """Erase the request's subject everywhere it reaches and write the receipt. Safe to run twice."""
    with transaction.atomic():
        request = ErasureRequest.objects.select_for_update().get(pk=request_id)
        if request.status == ErasureRequest.Status.DONE:
            return request
        banks = [request.bank] if request.bank_id else list(Bank.objects.filter(tenant_id=request.tenant_id))
        removed: dict[str, int] = {}
        redacted: dict[str, int] = {}
        for bank in banks:
            removed["queued_items"] = removed.get("queued_items", 0) + _drop_queued_items(bank, request.subject)
            ids = list(Episode.objects.filter(bank=bank, subject__iexact=request.subject).values_list("id", flat=True))
            if ids:
                for kind, count in episodes_delete(bank=bank, episode_ids=ids, erase=True).items():
                    removed[kind] = removed.get(kind, 0) + count
            # Mentions of the subject (and its aliases) in other subjects' episodes and everything derived.
            for kind, count in mentions_erase(bank=bank, terms=[request.subject, *request.aliases]).items():
                redacted[kind] = redacted.get(kind, 0) + count
        Tombstone.objects.get_or_create(
            tenant_id=request.tenant_id,
            bank=request.bank,
            subject_hash=request.subject_hash,
            defaults={"erasure": request},
        )
        request.subject = ""  # from here on only the hash identifies it
        request.aliases = []
        request.status = ErasureRequest.Status.DONE
        request.finished_at = timezone.now()
        rebuilt = removed.pop("mental_models_rebuilt", 0)
        request.receipt = {
            "scope": request.scope,
            "banks": len(banks),
            "removed": dict(sorted(removed.items())),
            "episodes_deleted": removed.get("episodes", 0),
            "episodes_redacted": redacted.get("episodes_redacted", 0),
            "redacted": dict(sorted(redacted.items())),
            "rebuilt": {"mental_models": rebuilt, "beliefs": removed.get("beliefs_reassessed", 0)},
            "tombstone": True,
            "requested_by": request.requested_by,
            "completed_at": request.finished_at.isoformat(),
        }
        request.save()
        audit_record(
            tenant=request.tenant_id,
            bank=request.bank,
            action="erasure.completed",
            target=f"erasure:{request.pk}",
            details={"removed": request.receipt["removed"], "rebuilt": request.receipt["rebuilt"]},
            actor=request.requested_by,
        )
    metrics.observe_erasure(removed.get("episodes", 0))
    return request


def _drop_queued_items(bank: Bank, subject: str) -> int:
    """Remove the subject's items from async batches that no worker has stored yet."""
    dropped = 0
    pending = RetainBatch.objects.select_for_update().filter(bank=bank, status__in=["pending", "processing"])
    for batch in pending:
        kept = [item for item in batch.items if (item.get("subject") or "").lower() != subject.lower()]
        if len(kept) != len(batch.items):
            dropped += len(batch.items) - len(kept)
            batch.items = kept
            batch.save(update_fields=["items"])
    return dropped


def bank_forget_and_audit(*, request=None, bank: Bank, requested_by: str) -> dict:
    """Forget a whole bank (``bank_forget``) and audit it with the receipt: ``DELETE banks/{bank}/`` and the
    tenant settings page call this."""
    tenant_id, slug = bank.tenant_id, bank.slug
    receipt = bank_forget(bank=bank, requested_by=requested_by)
    audit_record(request=request, tenant=tenant_id, action="bank.deleted", target=f"bank:{slug}", details=receipt)
    return receipt


def bank_forget(*, bank: Bank, requested_by: str) -> dict:
    """Delete a whole bank with everything in it; returns a receipt of what went (no content)."""
    from beliefs.models import Belief, MentalModel

    with transaction.atomic():
        receipt = {
            "bank": bank.slug,
            "removed": {
                "episodes": Episode.objects.filter(bank=bank).count(),
                "facts": Fact.objects.filter(bank=bank).count(),
                "beliefs": Belief.objects.filter(bank=bank).count(),
                "mental_models": MentalModel.objects.filter(bank=bank).count(),
            },
            "requested_by": requested_by[:200],
            "completed_at": timezone.now().isoformat(),
        }
        bank.delete()
    metrics.observe_erasure(receipt["removed"]["episodes"])
    return receipt
