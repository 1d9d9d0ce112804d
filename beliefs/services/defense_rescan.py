"""Re-scan what a bank already stores when its Memory Defense policy tightens.

A worker job walks the bank's episodes in id order (resumable from ``last_episode_id``),
redacts findings in content and metadata in place, and re-derives everything built from
the changed episodes: their facts and evidence are rebuilt from the redacted text,
search terms, entities and embeddings are recomputed, beliefs that quoted them are
re-assessed (and scrubbed when nothing supports them any more), version statements are
redacted, and mental models are rebuilt. Counts of kinds are kept; values never are.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from django.db import transaction
from django.utils import timezone

from banks.models import Bank
from banks.policy import bank_policy
from beliefs.defense.apply import metadata_text, scrub_value
from beliefs.defense.injection import injection_assessment
from beliefs.models import BeliefVersion, DefenseRescan, Episode, Fact
from beliefs.services.consolidate import lock_bank_for_consolidation
from beliefs.services.forget import beliefs_rederive
from beliefs.services.indexing import episodes_index, episodes_unindex
from memoryhub import metrics
from memoryhub.embeddings import embed_texts
from memoryhub.queues import TaskName, enqueue_on_commit
from memoryhub.tokens import count_tokens

CHUNK = 500


def defense_rescan_start(*, bank: Bank) -> DefenseRescan:
    """Queue a re-scan of everything ``bank`` stores under its current policy."""
    rescan = DefenseRescan.objects.create(
        tenant_id=bank.tenant_id, bank=bank, total=Episode.objects.filter(bank=bank).count()
    )
    enqueue_on_commit(TaskName.DEFENSE_RESCAN, rescan_id=rescan.pk, tenant_id=bank.tenant_id)
    return rescan


def defense_rescan_start_and_audit(*, request=None, bank: Bank) -> DefenseRescan:
    """Start a re-scan on request and audit it (``defense.rescan``): the API and the Memory Defense page call this."""
    from reviews.services.audit import audit_record

    rescan = defense_rescan_start(bank=bank)
    audit_record(request=request, tenant=bank.tenant_id, bank=bank, action="defense.rescan",
                 target=f"rescan:{rescan.pk}")  # fmt: skip
    return rescan


def defense_rescan_run(*, rescan_id: int) -> DefenseRescan:
    """Run (or resume) one re-scan to the end, a chunk per transaction."""
    rescan = DefenseRescan.objects.select_related("bank").get(pk=rescan_id)
    if rescan.status == DefenseRescan.Status.DONE:
        return rescan
    bank = rescan.bank
    ip_addresses = bank_policy(bank).defense_ip_addresses
    DefenseRescan.objects.filter(pk=rescan.pk).update(status=DefenseRescan.Status.RUNNING)
    while True:
        with transaction.atomic():
            rescan = DefenseRescan.objects.select_for_update().get(pk=rescan_id)
            episodes = list(
                Episode.objects.filter(bank=bank, pk__gt=rescan.last_episode_id)
                .order_by("id")
                .only("id", "content", "metadata")[:CHUNK]
            )
            if not episodes:
                rescan.status = DefenseRescan.Status.DONE
                rescan.finished_at = timezone.now()
                rescan.save()
                return rescan
            changes, kinds = {}, Counter(rescan.kinds)
            for episode in episodes:
                counts: Counter = Counter()
                content = scrub_value(episode.content, counts, ip_addresses)
                metadata = scrub_value(episode.metadata, counts, ip_addresses)
                if counts:
                    changes[episode.pk] = (content, metadata)
                    kinds.update(counts)
            if changes:
                episodes_rederive(bank=bank, changes=changes, ip_addresses=ip_addresses)
                metrics.observe_defense("redacted", Counter({k: kinds[k] - rescan.kinds.get(k, 0) for k in kinds}))
            rescan.scanned += len(episodes)
            rescan.redacted_episodes += len(changes)
            rescan.kinds = dict(sorted(kinds.items()))
            rescan.last_episode_id = episodes[-1].pk
            rescan.save()


def episodes_rederive(*, bank: Bank, changes: dict[int, tuple[str, dict]], ip_addresses: bool | str = "public") -> None:
    """Replace episodes' content/metadata and rebuild everything derived from them. Inside a transaction."""
    ids = sorted(changes)
    lock_bank_for_consolidation(bank)
    facts = Fact.objects.filter(bank=bank, episode_id__in=ids)
    slots = set(facts.values_list("subject_key", "predicate").distinct())
    facts.delete()  # evidence goes with them; re-extraction reads the redacted text
    episodes_unindex(bank=bank, episode_ids=ids)
    vectors = embed_texts([changes[pk][0] for pk in ids])
    rows = list(Episode.objects.filter(bank=bank, pk__in=ids).order_by("id"))
    for row, vector in zip(rows, vectors, strict=True):
        content, metadata = changes[row.pk]
        row.content, row.metadata, row.embedding = content, metadata, vector
        row.content_hash = hashlib.sha256(content.encode()).hexdigest()
        row.token_count = count_tokens(content)
        flags, row.injection_spans = injection_assessment(content, metadata_text(metadata))
        row.injection_flags = flags + (["recall_echo"] if "recall_echo" in (row.injection_flags or []) else [])
        row.extracted_at = None
    Episode.objects.bulk_update(
        rows,
        [
            "content",
            "metadata",
            "embedding",
            "content_hash",
            "token_count",
            "injection_flags",
            "injection_spans",
            "extracted_at",
        ],
    )
    episodes_index(bank=bank, episode_ids=ids)
    outcome, _, _ = beliefs_rederive(bank=bank, slots=slots)
    for version in BeliefVersion.objects.filter(belief_id__in=outcome.belief_ids):
        old = scrub_value(version.old_statement, Counter(), ip_addresses)
        new = scrub_value(version.new_statement, Counter(), ip_addresses)
        if (old, new) != (version.old_statement, version.new_statement):
            BeliefVersion.objects.filter(pk=version.pk).update(old_statement=old, new_statement=new)
    enqueue_on_commit(TaskName.EXTRACT_BANK, bank_id=bank.pk, tenant_id=bank.tenant_id)
