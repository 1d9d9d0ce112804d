"""Decide review items: accept, reject or overturn, with comment and actor. Decisions are final and idempotent."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from banks.models import Bank
from memoryhub.exceptions import ReviewDecisionInvalid, ReviewItemAlreadyDecided, ReviewItemNotFound
from reviews.models import ReviewItem

_OUTCOME = {
    "accept": ReviewItem.Status.ACCEPTED,
    "reject": ReviewItem.Status.REJECTED,
    "overturn": ReviewItem.Status.OVERTURNED,
}


def review_item_decide(*, bank: Bank, item_id: int, decision: str, comment: str = "", actor: str) -> ReviewItem:
    """Apply ``decision``; repeating the same decision is a no-op, a different one on a decided item is a 409.

    Accepting a lesson makes it a ``Play``; rejecting keeps it with its reason; overturning a
    suppression (the comment is required) records the alert as genuine so the belief stops
    suppressing; accepting a suppression with a comment stores the comment as a fresh proof.
    """
    from workloads.anomaly import suppression_confirm, suppression_overturn
    from workloads.distill import play_from_lesson

    with transaction.atomic():
        item = ReviewItem.objects.select_for_update().filter(bank=bank, pk=item_id).first()
        if item is None:
            raise ReviewItemNotFound()
        wanted = _OUTCOME[decision]
        if item.status == wanted:
            return item
        if item.status != ReviewItem.Status.PENDING and not (
            decision == "overturn" and item.status == ReviewItem.Status.ACCEPTED
        ):
            raise ReviewItemAlreadyDecided(extra={"status": item.status})
        if decision == "overturn":
            if item.kind != ReviewItem.Kind.SUPPRESSION:
                raise ReviewDecisionInvalid(extra={"kind": item.kind, "decision": decision})
            return suppression_overturn(item=item, comment=comment, actor=actor)
        if decision == "reject" and not comment.strip():
            raise ReviewDecisionInvalid("A rejection needs a reason in 'comment'.", extra={"decision": decision})
        if decision == "accept" and item.kind == ReviewItem.Kind.DISTILLATION:
            play_from_lesson(item=item, actor=actor, comment=comment)
            return item
        if decision == "accept" and item.kind == ReviewItem.Kind.SUPPRESSION and item.triage_id:
            # A person confirmed the alert benign: with their words, a fresh proof that keeps the belief current.
            suppression_confirm(item=item, comment=comment)
        item.status = wanted
        item.comment, item.decided_by, item.decided_at = comment, actor, timezone.now()
        item.save()
    return item


DECISIONS = tuple(_OUTCOME)


def review_item_decide_and_audit(*, request, bank: Bank, item_id: int, decision: str, comment: str = "") -> ReviewItem:
    """Decide an item for the person or key behind ``request`` and record the audit event.

    The API and the dashboard both call this, so a decision leaves the same rows whichever
    front end took it.
    """
    from audit.services import actor_of, audit_record

    if decision not in _OUTCOME:
        raise ReviewDecisionInvalid(extra={"decision": decision[:40], "allowed": list(DECISIONS)})
    item = review_item_decide(bank=bank, item_id=item_id, decision=decision, comment=comment, actor=actor_of(request))
    audit_record(
        request=request,
        tenant=bank.tenant,
        bank=bank,
        action=f"review.{decision}",
        target=f"review_item:{item.pk}",
        details={"status": item.status},
    )
    return item
