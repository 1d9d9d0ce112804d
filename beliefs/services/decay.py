"""Decay: beliefs that nobody reconfirms lose confidence and turn stale.

Run by Celery beat for every bank, and callable with any ``now`` (tests and replays
need no sleeping). The curve is ``beliefs.engine.confidence.decay_factor``: flat for
the bank's horizon, then halving every half-life. A change is written (with a
``decayed`` version) when the status changes or confidence moved by at least
``MIN_STEP`` since the last write, so an hourly task does not write a version per hour.
New supporting evidence restores a belief through consolidation.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from banks.models import Bank
from banks.policy import bank_policy
from beliefs.engine.confidence import assess_evidence
from beliefs.models import Belief, BeliefVersion
from beliefs.services.consolidate import lock_bank_for_consolidation
from memoryhub import metrics

MIN_STEP = 0.02
_DECAYING = (Belief.Status.ACTIVE, Belief.Status.CONTESTED, Belief.Status.STALE)


def beliefs_decay(*, bank: Bank, now: datetime | None = None) -> int:
    """Re-assess the bank's beliefs not reconfirmed within its horizon at ``now``; returns how many changed."""
    now = now or timezone.now()
    policy = bank_policy(bank)
    cutoff = now - timedelta(days=policy.decay_horizon_days)
    changed = 0
    with transaction.atomic():
        lock_bank_for_consolidation(bank)
        beliefs = (
            Belief.objects.select_for_update()
            .filter(bank=bank, status__in=_DECAYING, last_confirmed_at__lt=cutoff)
            .prefetch_related("evidence")
        )
        for belief in beliefs:
            assessment = assess_evidence(belief.evidence.all(), policy=policy, now=now)
            if assessment.status == belief.status and abs(assessment.confidence - belief.confidence) < MIN_STEP:
                continue
            old_status, old_confidence = belief.status, belief.confidence
            belief.status = assessment.status
            belief.confidence = assessment.confidence
            belief.base_confidence = assessment.base_confidence
            belief.version += 1
            belief.save(update_fields=["status", "confidence", "base_confidence", "version", "updated_at"])
            BeliefVersion.objects.create(
                tenant_id=belief.tenant_id,
                bank_id=belief.bank_id,
                belief=belief,
                version=belief.version,
                cause=BeliefVersion.Cause.DECAYED,
                old_statement=belief.statement,
                new_statement=belief.statement,
                old_confidence=old_confidence,
                new_confidence=belief.confidence,
                old_proof_count=belief.proof_count,
                new_proof_count=belief.proof_count,
                old_status=old_status,
                new_status=belief.status,
                evidence_ids=[],
                effective_at=now,
            )
            metrics.observe_belief_change(BeliefVersion.Cause.DECAYED)
            changed += 1
    return changed
