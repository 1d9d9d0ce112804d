"""Anomaly triage: suppress a recurring alert only on a cited, well-proven, current belief.

``triage`` answers ``suppress`` when all of these hold at the triage's ``now`` (only
evidence observed by then counts — no peeking at later events):

- a belief "alert S on T is benign" exists and its assessment at ``now`` is ``active``
  (not contested, invalidated, retracted, or stale past the decay horizon);
- its proof count is at least the bank's ``anomaly.suppress_threshold`` (default 3) and
  its confidence at least ``anomaly.min_confidence`` (0.6);
- the alert's value is within the range the dismissals were proven on (at most
  ``1 + anomaly.value_tolerance`` times the largest dismissed value).

Otherwise it answers ``investigate`` with the reasons and a context bundle under the
token budget: runbook steps that produced signal for this signature, then prior related
alerts from recall. Every suppression is recorded with its citations and, by policy,
queued for review; overturning one records that the alert was genuine, which
contests and weakens the benign belief, so the next similar alert is investigated.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from banks.models import Bank
from banks.policy import bank_policy
from beliefs.engine.confidence import assess_evidence
from beliefs.engine.types import RecallFilters
from beliefs.extractors import claim_key
from beliefs.models import Belief, BeliefVersion, Episode, Evidence, Fact, TriageDecision
from beliefs.services.consolidate import lock_bank_for_consolidation, slots_refresh
from beliefs.services.recall import recall
from beliefs.workloads.common import record_event
from memoryhub.tokens import count_tokens
from reviews.models import ReviewItem

EVENT_TEMPLATES = {
    "alert": "ALERT {signature} on {target}: value {value}",
    "dismissal": "Analyst closed {signature} on {target} as benign: {reason}",
    "incident": "Confirmed incident: {signature} on {target} was genuine. {reason}",
    "cause": "{signature} on {target} was caused by {cause}",
    "baseline": "Baseline of {metric} on {target}: {value}",
    "runbook": "Runbook step {step} for {signature} {outcome}",
}


@dataclass
class TriageResult:
    decision: str
    reasons: list[str]
    decision_id: int
    belief: dict | None = None
    citations: list[dict] = field(default_factory=list)
    context: list[dict] = field(default_factory=list)
    runbook_steps: list[dict] = field(default_factory=list)
    tokens_used: int = 0
    budget_tokens: int = 0
    review_item_id: int | None = None


def anomaly_event_record(*, bank: Bank, event: dict, occurred_at: datetime, fold_now: bool = False) -> int | None:
    """Store an alert, dismissal, incident, cause, baseline or runbook outcome as a typed episode."""
    kind = event["type"]
    target = event.get("host") or event.get("service") or event.get("target") or ""
    fields = {
        "signature": event.get("signature", ""),
        "target": target,
        "value": event.get("value", ""),
        "reason": event.get("reason", ""),
        "cause": event.get("cause", ""),
        "metric": event.get("metric", ""),
        "step": event.get("step", ""),
        "outcome": "produced signal" if event.get("produced_signal", True) else "showed nothing",
    }
    content = EVENT_TEMPLATES[kind].format(**fields).strip().rstrip(":")
    metadata = {k: v for k, v in event.items() if k != "type" and v not in (None, "")}
    metadata["event"] = kind
    return record_event(
        bank=bank,
        content=content,
        metadata=metadata,
        occurred_at=occurred_at,
        source="monitoring" if kind in {"alert", "baseline"} else "analyst",
        provenance="tool" if kind in {"alert", "baseline"} else "user",
        fold_now=fold_now,
    )


def _benign_belief(bank: Bank, signature: str, target: str) -> Belief | None:
    return Belief.objects.filter(
        bank=bank, subject_key=claim_key(f"alert {signature} on {target}"), predicate="is", object_key="benign"
    ).first()


def triage(
    *,
    bank: Bank,
    signature: str,
    target: str,
    value: float | None = None,
    now: datetime | None = None,
    budget_tokens: int = 400,
) -> TriageResult:
    """Decide suppress or investigate for a new alert at ``now``; records the decision."""
    now = now or timezone.now()
    policy = bank_policy(bank)
    reasons: list[str] = []
    citations: list[dict] = []
    belief_info = None
    belief = _benign_belief(bank, signature, target)
    assessment = None
    if belief is None:
        reasons.append("no belief that this alert is benign")
    else:
        evidence = list(
            Evidence.objects.filter(belief=belief, observed_at__lte=now)
            .select_related("episode")
            .order_by("-observed_at")
        )
        support = [e for e in evidence if e.stance == "supports"]
        last_support = support[0].observed_at if support else None
        superseded = None
        if last_support is not None:
            superseded = (
                Fact.objects.filter(
                    bank=bank,
                    subject_key=belief.subject_key,
                    predicate="is",
                    negated=False,
                    quarantined=False,
                    valid_at__gt=last_support,
                    valid_at__lte=now,
                )
                .exclude(object_key="benign")
                .order_by("valid_at")
                .values_list("valid_at", flat=True)
                .first()
            )
        assessment = assess_evidence(evidence, policy=policy, now=now, superseded_at=superseded)
        belief_info = {
            "id": belief.pk,
            "statement": belief.statement,
            "status": assessment.status,
            "proof_count": assessment.proof_count,
            "confidence": assessment.confidence,
            "last_confirmed_at": assessment.last_confirmed_at,
        }
        if assessment.status != "active":
            reasons.append(f"the belief is {assessment.status} at this time")
        if assessment.proof_count < policy.suppress_threshold:
            reasons.append(f"proof count {assessment.proof_count} is below the threshold {policy.suppress_threshold}")
        if assessment.confidence < policy.suppress_min_confidence:
            reasons.append(f"confidence {assessment.confidence:.2f} is below {policy.suppress_min_confidence:.2f}")
        proven = [float(e.episode.metadata["value"]) for e in support if _number(e.episode.metadata.get("value"))]
        if value is not None and proven and value > max(proven) * (1 + policy.value_tolerance):
            reasons.append(f"value {value:g} is above the range it was proven benign on (max {max(proven):g})")
        citations = [
            {"episode_id": e.episode_id, "quote": e.quote, "observed_at": e.observed_at.isoformat()}
            for e in support[:3]
        ]
    decision = TriageDecision.Decision.INVESTIGATE if reasons else TriageDecision.Decision.SUPPRESS
    with transaction.atomic():
        record = TriageDecision.objects.create(
            tenant_id=bank.tenant_id,
            bank=bank,
            signature=signature,
            target=target,
            value=value,
            decided_at=now,
            decision=decision,
            belief=belief,
            proof_count=assessment.proof_count if assessment else 0,
            confidence=assessment.confidence if assessment else 0.0,
            reasons=reasons,
            citations=citations,
        )
        result = TriageResult(
            decision=decision,
            reasons=reasons,
            decision_id=record.pk,
            belief=belief_info,
            citations=citations,
            budget_tokens=budget_tokens,
        )
        if decision == TriageDecision.Decision.SUPPRESS:
            if _needs_review(policy, record.pk):
                item = ReviewItem.objects.create(
                    tenant_id=bank.tenant_id,
                    bank=bank,
                    kind=ReviewItem.Kind.SUPPRESSION,
                    belief=belief,
                    triage=record,
                    title=f"Suppressed {signature} on {target}",
                    body=f"{belief.statement}: {assessment.proof_count} proofs, confidence {assessment.confidence:.2f}",
                    payload={"citations": citations, "value": value, "decided_at": now.isoformat()},
                )
                result.review_item_id = item.pk
        else:
            _context_bundle(bank, result, signature, target, now, budget_tokens)
    return result


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _needs_review(policy, decision_id: int) -> bool:
    if policy.suppression_review == "all":
        return True
    bucket = int(hashlib.sha256(str(decision_id).encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return bucket < policy.suppression_review_sample_rate


def _context_bundle(bank: Bank, result: TriageResult, signature: str, target: str, now, budget_tokens: int) -> None:
    """Runbook steps that produced signal, then prior related alerts, within ``budget_tokens``."""
    used = 0
    steps = Fact.objects.filter(
        bank=bank,
        predicate="produces",
        negated=False,
        quarantined=False,
        valid_at__lte=now,
        subject_key__endswith=claim_key(f"for alert {signature}"),
    ).values_list("subject", flat=True)
    counts: dict[str, int] = {}
    for subject in steps:
        counts[subject] = counts.get(subject, 0) + 1
    for subject, count in sorted(counts.items(), key=lambda kv: -kv[1]):
        line = f"{subject} produced signal {count} times"
        cost = count_tokens(line)
        if used + cost > budget_tokens:
            break
        result.runbook_steps.append({"step": subject, "times_with_signal": count})
        used += cost
    room = budget_tokens - used
    if room >= 16:
        recalled = recall(
            bank=bank,
            query=f"alert {signature} on {target}",
            budget_tokens=room,
            filters=RecallFilters(occurred_before=now),
            kinds=("episode",),
            now=now,
        )
        result.context = [
            {
                "episode_id": item.item_id,
                "text": item.text,
                "occurred_at": item.occurred_at.isoformat(),
                "untrusted": True,
            }
            for item in recalled.items
        ]
        used += recalled.tokens_used
    result.tokens_used = used


OVERTURN_WEIGHT = 3.0  # a reviewer's overturn outweighs three routine dismissals


def suppression_overturn(*, item: ReviewItem, comment: str, actor: str, now: datetime | None = None) -> ReviewItem:
    """The analyst says the suppressed alert was real: the belief is contested and weakened.

    The overturn is stored as an analyst note (an episode) and attached to the belief as
    contradicting evidence of weight ``OVERTURN_WEIGHT``, observed at the triage's time.
    Being the latest word, it contests the belief, so the next similar alert is
    investigated; the belief recovers only as fresh dismissals outweigh it.
    """
    if item.status == ReviewItem.Status.OVERTURNED:
        return item  # idempotent
    record = item.triage
    now = now or (record.decided_at if record else timezone.now())
    with transaction.atomic():
        item.status = ReviewItem.Status.OVERTURNED
        item.comment, item.decided_by, item.decided_at = comment, actor, timezone.now()
        item.save()
        if record is None or item.belief_id is None:
            return item
        note = f"Analyst overturned the suppression of {record.signature} on {record.target} (review {item.pk})"
        episode_id = record_event(
            bank=item.bank,
            content=note,
            metadata={"review_item": item.pk},
            occurred_at=now,
            source="review",
            idempotency_key=f"overturn-{item.pk}",
        )
        episode = Episode.objects.get(pk=episode_id)
        lock_bank_for_consolidation(item.bank)
        Evidence.objects.get_or_create(
            belief_id=item.belief_id,
            episode=episode,
            stance="contradicts",
            defaults={
                "tenant_id": item.tenant_id,
                "bank_id": item.bank_id,
                "fact": None,
                "quote": note,
                "quote_start": 0,
                "quote_end": len(note),
                "weight": OVERTURN_WEIGHT,
                "observed_at": now,
                "recorded_at": episode.recorded_at,
            },
        )
        belief = item.belief
        slots_refresh(
            bank=item.bank,
            slots={(belief.subject_key, belief.predicate)},
            now=now,
            cause_hint=BeliefVersion.Cause.REVIEWED,
        )
    return item


def suppression_confirm(*, item: ReviewItem) -> None:
    """Record a reviewer's confirmation of a suppression as a dismissal at the triage's time."""
    record = item.triage
    anomaly_event_record(
        bank=item.bank,
        event={
            "type": "dismissal",
            "signature": record.signature,
            "target": record.target,
            "value": record.value,
            "reason": f"suppression confirmed in review {item.pk}",
        },
        occurred_at=record.decided_at,
        fold_now=True,
    )
