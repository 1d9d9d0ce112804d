"""Erasure requests: every episode and mention of a subject, in one bank or across the tenant.

The subject's own episodes are deleted (``episodes``) and its mentions elsewhere are
redacted (``mentions``), everything derived from either is rebuilt, a keyed-hash
tombstone keeps an import or a retain from bringing the subject back, and the request
ends with a receipt of counts: it never holds the erased content.

The aliases of a request (other names and identifiers of the same person) count as the
subject: episodes whose subject folds (``tombstones.subject_folded``: case, Unicode
compatibility forms, whitespace) to the subject or to an alias are deleted, each leaves
a tombstone, and mentions of any of them elsewhere are redacted. Aliases with fewer than
``MIN_ALIAS_CHARACTERS`` letters or digits are refused: matching is by whole words, so a
short alias would rewrite every word that happens to match it, irreversibly.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from beliefs.models import Episode, ErasureRequest, RetainBatch, Tombstone
from beliefs.services.forget.episodes import episodes_delete
from beliefs.services.forget.mentions import alias_too_short, mentions_erase
from beliefs.services.forget.tombstones import subject_folded, subject_hash, subject_hashes
from memoryhub import metrics
from memoryhub.exceptions import ErasureAliasTooShort
from memoryhub.queues import TaskName, enqueue_on_commit


def erasure_request_create(
    *, tenant, bank: Bank | None, subject: str, actor: str, aliases: list[str] | None = None
) -> ErasureRequest:
    """Record ``actor``'s erasure of ``subject`` (in ``bank``, or the whole tenant when ``bank`` is None), audit it
    and queue it.

    ``aliases``: other names and identifiers of the subject (e-mail, phone, account id): episodes
    filed under them go too, and their mentions in other subjects' memory are redacted. Raises
    ``ErasureAliasTooShort`` for an alias with fewer than ``MIN_ALIAS_CHARACTERS`` letters or digits.
    """
    short = [index for index, alias in enumerate(aliases or []) if alias_too_short(alias)]
    if short:
        raise ErasureAliasTooShort(extra={"aliases": short})
    request = ErasureRequest.objects.create(
        tenant=tenant,
        bank=bank,
        scope="bank" if bank else "tenant",
        subject=subject,
        aliases=list(aliases or []),
        subject_hash=subject_hash(tenant_id=tenant.pk, subject=subject),
        requested_by=actor[:200],
    )
    audit_record(tenant=tenant, bank=bank, action="erasure.requested", target=f"erasure:{request.pk}", actor=actor)
    enqueue_on_commit(TaskName.RUN_ERASURE, request_id=request.pk, tenant_id=tenant.pk)
    return request


def erasure_request_run(*, request_id: int) -> ErasureRequest:
    """Erase the request's subject everywhere it reaches and write the receipt. Safe to run twice."""
    with transaction.atomic():
        request = ErasureRequest.objects.select_for_update().get(pk=request_id)
        if request.status == ErasureRequest.Status.DONE:
            return request
        banks = [request.bank] if request.bank_id else list(Bank.objects.filter(tenant_id=request.tenant_id))
        removed: dict[str, int] = {}
        redacted: dict[str, int] = {}
        names = [request.subject, *request.aliases]
        for bank in banks:
            removed["queued_items"] = removed.get("queued_items", 0) + _drop_queued_items(bank, names)
            ids = _subject_episode_ids(bank, names)
            if ids:
                for kind, count in episodes_delete(bank=bank, episode_ids=ids, erase=True).items():
                    removed[kind] = removed.get(kind, 0) + count
            # Mentions of the subject (and its aliases) in other subjects' episodes and everything derived.
            for kind, count in mentions_erase(bank=bank, terms=names).items():
                redacted[kind] = redacted.get(kind, 0) + count
        for digest in {request.subject_hash, *subject_hashes(tenant_id=request.tenant_id, subjects=request.aliases)}:
            Tombstone.objects.get_or_create(
                tenant_id=request.tenant_id, bank=request.bank, subject_hash=digest, defaults={"erasure": request}
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


def _subject_episode_ids(bank: Bank, names: list[str]) -> list[int]:
    """Episodes of ``bank`` filed under any spelling of ``names`` (compared folded, as tombstones are)."""
    folded = {subject_folded(name) for name in names} - {""}
    subjects = (
        Episode.objects.filter(bank=bank).exclude(subject="").order_by().values_list("subject", flat=True).distinct()
    )
    matching = [subject for subject in subjects if subject_folded(subject) in folded]
    return list(Episode.objects.filter(bank=bank, subject__in=matching).values_list("id", flat=True))


def _drop_queued_items(bank: Bank, names: list[str]) -> int:
    """Remove the items filed under any of ``names`` from async batches that no worker has stored yet."""
    folded = {subject_folded(name) for name in names} - {""}
    dropped = 0
    pending = RetainBatch.objects.select_for_update().filter(bank=bank, status__in=["pending", "processing"])
    for batch in pending:
        kept = [item for item in batch.items if subject_folded(item.get("subject") or "") not in folded]
        if len(kept) != len(batch.items):
            dropped += len(batch.items) - len(kept)
            batch.items = kept
            batch.save(update_fields=["items"])
    return dropped
