"""Gated distillation: session lessons become review items; only an accepted one becomes a ``Play``.

A lesson needs evidence — episode ids of this bank, or the churn play and segment it is
about. By default every lesson waits for a person. A bank may set
``distillation.auto_accept_min_outcomes``: a lesson about a play and segment with at
least that many scored outcomes is accepted at once (recorded as such).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from banks.policy import bank_policy
from beliefs.defense.apply import values_defend
from beliefs.models import Episode, Play
from memoryhub.embeddings import embed_texts
from memoryhub.exceptions import LessonWithoutEvidence
from reviews.models import ReviewItem
from workloads.models import Intervention


def lessons_submit(*, bank: Bank, lessons: list[dict], session: str = "", actor: str = "") -> list[ReviewItem]:
    """One pending review item per lesson (or accepted, when the bank's auto-accept rule is met).

    Each is audited as submitted by ``actor`` when one is given.
    """
    policy = bank_policy(bank)
    lessons, session = values_defend(bank=bank, value=[lessons, session], field="lessons")
    for index, lesson in enumerate(lessons):
        ids = lesson.get("evidence_episode_ids") or []
        if ids and Episode.objects.filter(bank=bank, pk__in=ids).count() != len(set(ids)):
            raise LessonWithoutEvidence(extra={"lesson": index, "reason": "unknown episode ids"})
        if not ids and not (lesson.get("play") and lesson.get("segment")):
            raise LessonWithoutEvidence(extra={"lesson": index})
    items = []
    with transaction.atomic():
        for lesson in lessons:
            item = ReviewItem.objects.create(
                tenant_id=bank.tenant_id,
                bank=bank,
                kind=ReviewItem.Kind.DISTILLATION,
                title=lesson["text"][:300],
                body=lesson["text"],
                payload={**lesson, "session": session, "submitted_by": actor},
            )
            outcomes = _scored_outcomes(bank, lesson)
            if policy.auto_accept_min_outcomes and outcomes >= policy.auto_accept_min_outcomes:
                item.status, item.decided_at = ReviewItem.Status.ACCEPTED, timezone.now()
                item.decided_by = f"auto-accept ({outcomes} scored outcomes)"
                item.save()
                play_from_lesson(item=item)
            if actor:
                audit_record(tenant=bank.tenant_id, bank=bank, action="lesson.submitted",
                             target=f"review_item:{item.pk}", actor=actor)  # fmt: skip
            items.append(item)
    return items


def _scored_outcomes(bank: Bank, lesson: dict) -> int:
    if not (lesson.get("play") and lesson.get("segment")):
        return 0
    return Intervention.objects.filter(
        bank=bank, play=lesson["play"], segment=lesson["segment"], outcome__in=["retained", "churned"]
    ).count()


def play_from_lesson(*, item: ReviewItem, comment: str = "", actor: str = "") -> Play:
    """An accepted distillation item becomes procedural memory (the review handler of lessons)."""
    payload = item.payload
    return Play.objects.create(
        tenant_id=item.tenant_id,
        bank_id=item.bank_id,
        text=item.body,
        play=payload.get("play", "") or "",
        segment=payload.get("segment", "") or "",
        signature=payload.get("signature", "") or "",
        review_item=item,
        embedding=embed_texts([item.body])[0],
    )
