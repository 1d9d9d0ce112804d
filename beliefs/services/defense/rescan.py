"""Re-scan what a bank already stores when its Memory Defense policy tightens.

A worker job walks the bank's episodes in id order (resumable from ``last_episode_id``),
redacts findings in content and metadata in place, and re-derives everything built from
the changed episodes: their facts and evidence are rebuilt from the redacted text,
search terms, entities and embeddings are recomputed, beliefs that quoted them are
re-assessed (and scrubbed when nothing supports them any more), version statements are
redacted, and mental models are rebuilt. Counts of kinds are kept; values never are. At the end,
what every stored fact may support is re-decided under the bank's current trust tiers
(``quarantine.bank_evidence_reassess``).
"""

from __future__ import annotations

from collections import Counter

from django.db import transaction
from django.utils import timezone

from audit.services import audit_record
from banks.hooks import Followup
from banks.models import Bank
from banks.policy import BankPolicy, bank_policy, defense_tightened, trust_changed
from beliefs.defense.apply import scrub_value
from beliefs.models import DefenseRescan, Episode
from beliefs.services.defense.quarantine import bank_evidence_reassess
from beliefs.services.rederive import episodes_rederive
from memoryhub import metrics
from memoryhub.queues import TaskName, enqueue_on_commit

CHUNK = 500


def defense_rescan_start(*, bank: Bank, actor: str | None = None, queue: bool = True) -> DefenseRescan:
    """Start a re-scan of everything ``bank`` stores under its current policy: queued for a worker, or, without
    ``queue``, left for the caller to run (``defense_rescan_run``).

    Audited when ``actor`` asked for it; one started by a policy change is part of that
    change's ``bank.updated`` event.
    """
    rescan = DefenseRescan.objects.create(
        tenant_id=bank.tenant_id, bank=bank, total=Episode.objects.filter(bank=bank).count()
    )
    if queue:
        enqueue_on_commit(TaskName.DEFENSE_RESCAN, rescan_id=rescan.pk, tenant_id=bank.tenant_id)
    if actor:
        audit_record(tenant=bank.tenant_id, bank=bank, action="defense.rescan", target=f"rescan:{rescan.pk}",
                     actor=actor)  # fmt: skip
    return rescan


def rescan_when_defense_tightened(*, bank: Bank, before: BankPolicy, after: BankPolicy) -> Followup | None:
    """Policy-change handler (``banks.hooks``): re-scan what the bank stores when Memory Defense tightened, or when
    a provenance moved to another trust tier (the re-scan ends by re-deciding what every stored fact may support)."""
    tightened = defense_tightened(before, after)
    if not tightened and not trust_changed(before, after):
        return None
    rescan = defense_rescan_start(bank=bank)
    why = "Memory Defense tightened" if tightened else "Trust tiers changed"
    return Followup(
        key="defense_rescan",
        message=f"{why}: re-scanning {rescan.total} stored episodes (see Memory Defense).",
        summary={"id": rescan.pk, "status": rescan.status, "total": rescan.total},
    )


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
                bank_evidence_reassess(bank=bank)
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
