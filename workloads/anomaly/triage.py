"""Anomaly triage: suppress a recurring alert only on a cited, well-proven, current, uncontested belief.

``triage`` answers ``suppress`` when all of these hold at the triage's ``now`` (only
evidence observed by then counts — no peeking at later events):

- a belief "alert S on T is benign" exists for the alert's pattern (``events.pattern_target``)
  and its assessment at ``now`` is ``active`` (not contested, invalidated, retracted, or stale
  past the decay horizon);
- its proof count is at least the bank's ``anomaly.suppress_threshold`` (default 3) and its
  confidence at least ``anomaly.min_confidence`` (0.6);
- nothing contradicted it within ``anomaly.contest_days`` (30) before ``now``: an analyst's
  contest, an overturned suppression or a confirmed incident on the same pattern;
- the alert's value is within the range the dismissals were proven on (at most
  ``1 + anomaly.value_tolerance`` times the largest dismissed value).

Otherwise it answers ``investigate`` with the reasons and a context bundle under the token
budget: runbook steps that produced signal for this signature, then prior related alerts from
recall. Every decision is stored with the belief's status and proof count at decision time
(a database constraint refuses a suppression whose belief was not ``active``); a suppression
cites the analysts' own words — each quote an exact substring of a dismissal reason or review
comment, with its span — and is queued for review by policy.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from banks.policy import bank_policy
from beliefs.engine.confidence import assess_evidence
from beliefs.engine.types import RecallFilters
from beliefs.extractors import claim_key
from beliefs.extractors.structured import QUOTE_FIELD
from beliefs.models import Belief, Evidence, Fact
from beliefs.services.recall import RecallOptions, recall
from memoryhub.tokens import count_tokens
from reviews.models import ReviewItem
from workloads.anomaly.events import pattern_target
from workloads.models import TriageDecision

MAX_CITATIONS = 3


@dataclass
class TriageResult:
    decision: str
    reasons: list[str]
    decision_id: int
    pattern: dict
    belief: dict | None = None
    citations: list[dict] = field(default_factory=list)
    contradictions: list[dict] = field(default_factory=list)
    context: list[dict] = field(default_factory=list)
    runbook_steps: list[dict] = field(default_factory=list)
    tokens_used: int = 0
    budget_tokens: int = 0
    review_item_id: int | None = None


def benign_belief(*, bank: Bank, signature: str, target: str) -> Belief | None:
    """The belief "alert S on T is benign" for one pattern, if it formed."""
    return Belief.objects.filter(
        bank=bank, subject_key=claim_key(f"alert {signature} on {target}"), predicate="is", object_key="benign"
    ).first()


def citation(evidence: Evidence) -> dict:
    """One evidence row as a citation: the quote, its span in the episode, and the analyst's field it came from."""
    metadata = evidence.episode.metadata if isinstance(evidence.episode.metadata, dict) else {}
    field_name = metadata.get(QUOTE_FIELD)
    authored = metadata.get(field_name) if isinstance(field_name, str) else None
    offset = authored.find(evidence.quote) if isinstance(authored, str) and evidence.quote else -1
    return {
        "evidence_id": evidence.pk,
        "episode_id": evidence.episode_id,
        "quote": evidence.quote,
        "quote_start": evidence.quote_start,
        "quote_end": evidence.quote_end,
        "source_field": field_name if offset >= 0 else None,
        "source_span": [offset, offset + len(evidence.quote)] if offset >= 0 else None,
        "stance": evidence.stance,
        "observed_at": evidence.observed_at.isoformat(),
    }


def triage(
    *,
    bank: Bank,
    signature: str,
    host: str | None = None,
    service: str | None = None,
    target: str | None = None,
    value: float | None = None,
    now: datetime | None = None,
    budget_tokens: int = 400,
    actor: str | None = None,
) -> TriageResult:
    """Decide suppress or investigate for a new alert at ``now``; records the decision.

    The pattern is ``signature`` on ``target`` when given, else on the target the bank's
    ``anomaly.key`` makes of ``host`` and ``service``.
    """
    now = now or timezone.now()
    policy = bank_policy(bank)
    target = target or pattern_target(policy=policy, host=host, service=service)
    pattern = {"signature": signature, "target": target, "host": host or "", "service": service or ""}
    pattern["key"] = policy.anomaly_key
    reasons: list[str] = []
    citations: list[dict] = []
    contradictions: list[dict] = []
    belief_info = None
    belief = benign_belief(bank=bank, signature=signature, target=target)
    assessment = None
    if belief is None:
        reasons.append("no belief that this alert is benign")
    else:
        evidence = list(
            Evidence.objects.filter(belief=belief, observed_at__lte=now)
            .select_related("episode")
            .order_by("-observed_at", "-id")
        )
        support = [e for e in evidence if e.stance == Evidence.Stance.SUPPORTS]
        against = [e for e in evidence if e.stance == Evidence.Stance.CONTRADICTS]
        superseded = _superseded(bank, belief, support, now)
        assessment = assess_evidence(evidence, policy=policy, now=now, superseded_at=superseded)
        belief_info = {
            "id": belief.pk,
            "statement": belief.statement,
            "status": assessment.status,
            "proof_count": assessment.proof_count,
            "confidence": assessment.confidence,
            "last_confirmed_at": assessment.last_confirmed_at,
        }
        if assessment.status != Belief.Status.ACTIVE:
            reasons.append(f"the belief is {assessment.status} at this time")
        if assessment.proof_count < policy.suppress_threshold:
            reasons.append(f"proof count {assessment.proof_count} is below the threshold {policy.suppress_threshold}")
        if assessment.confidence < policy.suppress_min_confidence:
            reasons.append(f"confidence {assessment.confidence:.2f} is below {policy.suppress_min_confidence:.2f}")
        if against and policy.contest_days > 0:
            latest = against[0].observed_at
            quiet_until = latest + timedelta(days=policy.contest_days)
            if now < quiet_until:
                reasons.append(
                    f"contradicted on {latest:%Y-%m-%d} (contest, overturn or confirmed incident); "
                    f"no suppression until {quiet_until:%Y-%m-%d}"
                )
        proven = [float(e.episode.metadata["value"]) for e in support if _number(e.episode.metadata.get("value"))]
        if value is not None and proven and value > max(proven) * (1 + policy.value_tolerance):
            reasons.append(f"value {value:g} is above the range it was proven benign on (max {max(proven):g})")
        citations = [citation(e) for e in support[:MAX_CITATIONS]]
        contradictions = [citation(e) for e in against[:MAX_CITATIONS]]
    decision = TriageDecision.Decision.INVESTIGATE if reasons else TriageDecision.Decision.SUPPRESS
    with transaction.atomic():
        record = TriageDecision.objects.create(
            tenant_id=bank.tenant_id,
            bank=bank,
            signature=signature,
            target=target,
            host=host or "",
            service=service or "",
            value=value,
            decided_at=now,
            decision=decision,
            belief=belief,
            belief_status=assessment.status if assessment else "",
            proof_count=assessment.proof_count if assessment else 0,
            confidence=assessment.confidence if assessment else 0.0,
            reasons=reasons,
            citations=citations,
        )
        if actor:
            audit_record(tenant=bank.tenant_id, bank=bank, action=f"anomaly.{decision}",
                         target=f"triage:{record.pk}", actor=actor)  # fmt: skip
        result = TriageResult(
            decision=decision,
            reasons=reasons,
            decision_id=record.pk,
            pattern=pattern,
            belief=belief_info,
            citations=citations,
            contradictions=contradictions,
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
                    payload={
                        "citations": citations,
                        "value": value,
                        "decided_at": now.isoformat(),
                        "belief_status": assessment.status,
                        "proof_count": assessment.proof_count,
                    },
                )
                result.review_item_id = item.pk
        else:
            _context_bundle(bank, result, signature, target, now, budget_tokens)
    return result


def _superseded(bank: Bank, belief: Belief, support: list[Evidence], now: datetime) -> datetime | None:
    """When a newer, different verdict on the pattern (genuine) replaced benign, as known at ``now``."""
    if not support:
        return None
    return (
        Fact.objects.filter(
            bank=bank,
            subject_key=belief.subject_key,
            predicate="is",
            negated=False,
            quarantined=False,
            valid_at__gt=support[0].observed_at,
            valid_at__lte=now,
        )
        .exclude(object_key="benign")
        .order_by("valid_at")
        .values_list("valid_at", flat=True)
        .first()
    )


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
            options=RecallOptions(kinds=("episode",), now=now),
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
