"""Decide review items: accept, reject or overturn, with comment and actor. Decisions are final and idempotent."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from memoryhub.exceptions import ReviewDecisionInvalid, ReviewItemAlreadyDecided, ReviewItemNotFound
from memoryhub.text_defense import text_defend
from reviews.handlers import review_handler
from reviews.models import ReviewItem

_OUTCOME = {
    "accept": ReviewItem.Status.ACCEPTED,
    "reject": ReviewItem.Status.REJECTED,
    "overturn": ReviewItem.Status.OVERTURNED,
}
DECISIONS = tuple(_OUTCOME)


def review_item_decide(*, bank: Bank, item_id: int, decision: str, comment: str = "", actor: str) -> ReviewItem:
    """Record ``actor``'s decision with its audit event, and apply what the item's kind says it does.

    Repeating the same decision is a no-op; a different one on a decided item is a 409, except
    that an accepted item may be overturned when its kind allows it. A rejection needs a
    reason. What follows from a decision (a lesson becoming a ``Play``, an overturned
    suppression contesting its belief) is done by the handler the owning app registered
    (``reviews.handlers``), in the same transaction: if it refuses, nothing is recorded.
    """
    if decision not in _OUTCOME:
        raise ReviewDecisionInvalid(extra={"decision": decision[:40], "allowed": list(DECISIONS)})
    comment = text_defend(bank=bank, value=comment, field="comment")
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
        handler = review_handler(item.kind)
        consequence = {"accept": handler.on_accept, "reject": handler.on_reject, "overturn": handler.on_overturn}
        if decision == "overturn" and handler.on_overturn is None:
            raise ReviewDecisionInvalid(extra={"kind": item.kind, "decision": decision})
        if decision == "reject" and not comment.strip():
            raise ReviewDecisionInvalid("A rejection needs a reason in 'comment'.", extra={"decision": decision})
        item.status = wanted
        item.comment, item.decided_by, item.decided_at = comment, actor, timezone.now()
        item.save()
        if consequence[decision] is not None:
            consequence[decision](item=item, comment=comment, actor=actor)
        audit_record(
            tenant=bank.tenant_id,
            bank=bank,
            action=f"review.{decision}",
            target=f"review_item:{item.pk}",
            details={"status": item.status},
            actor=actor,
        )
    return item
