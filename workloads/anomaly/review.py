"""Review of a suppression: an overturn contests and weakens the belief; an accept with a comment is a fresh proof.

Both store the reviewer's comment as an analyst episode ("Analyst overturned …: <comment>"),
and the evidence quote is exactly the comment, with its span — never the line around it.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from beliefs.extractors.structured import QUOTE_FIELD
from beliefs.models import BeliefVersion, Episode, Evidence
from beliefs.services.consolidate import lock_bank_for_consolidation, slots_refresh
from memoryhub.exceptions import ReviewDecisionInvalid
from reviews.models import ReviewItem
from workloads.anomaly.events import anomaly_event_record
from workloads.events import record_event

OVERTURN_WEIGHT = 3.0  # a reviewer's overturn outweighs three routine dismissals


def suppression_overturn(*, item: ReviewItem, comment: str, actor: str = "", now: datetime | None = None) -> None:
    """The analyst says the suppressed alert was real: the belief is contested and weakened.

    Called when the overturn is recorded (``review_item_decide``). The comment (required: it is
    the evidence) is stored as an analyst episode and attached to the belief as contradicting
    evidence of weight ``OVERTURN_WEIGHT``, observed at the triage's time and quoting the
    comment exactly. Being the latest word, it contests the belief, so the next similar alert
    is investigated; the belief recovers only as fresh dismissals outweigh it (and, by default,
    not within ``anomaly.contest_days`` of the overturn).
    """
    comment = (comment or "").strip()
    if not comment:
        raise ReviewDecisionInvalid(
            "An overturn needs the analyst's reason in 'comment'; it is stored as evidence.",
            extra={"decision": "overturn"},
        )
    record = item.triage
    now = now or (record.decided_at if record else timezone.now())
    with transaction.atomic():
        if record is None or item.belief_id is None:
            return
        note = f"Analyst overturned the suppression of {record.signature} on {record.target} (review {item.pk}): "
        episode_id = record_event(
            bank=item.bank,
            content=note + comment,
            metadata={"review_item": item.pk, "comment": comment, QUOTE_FIELD: "comment"},
            occurred_at=now,
            source="review",
            idempotency_key=f"overturn-{item.pk}",
        )
        episode = Episode.objects.get(pk=episode_id)
        start = episode.content.rfind(comment)
        if start < 0:  # Memory Defense redacted part of it: quote what was stored after the note
            start, comment = len(note), episode.content[len(note) :]
        lock_bank_for_consolidation(item.bank)
        Evidence.objects.get_or_create(
            belief_id=item.belief_id,
            episode=episode,
            stance=Evidence.Stance.CONTRADICTS,
            defaults={
                "tenant_id": item.tenant_id,
                "bank_id": item.bank_id,
                "fact": None,
                "quote": comment,
                "quote_start": start,
                "quote_end": start + len(comment),
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


def suppression_confirm(*, item: ReviewItem, comment: str = "", actor: str = "") -> int | None:
    """A reviewer accepted a suppression. With a comment, it is a fresh proof quoting that comment.

    Without a comment nothing is added to the belief: every proof cites an analyst's own words.
    Returns the id of the dismissal episode recorded, if any.
    """
    record = item.triage
    comment = (comment or "").strip()
    if record is None or not comment:
        return None
    return anomaly_event_record(
        bank=item.bank,
        event={
            "type": "dismissal",
            "signature": record.signature,
            "target": record.target,
            "value": record.value,
            "reason": comment,
            "review_item": item.pk,
        },
        occurred_at=record.decided_at,
        fold_now=True,
    )
