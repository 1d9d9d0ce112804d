"""Gated distillation: session lessons become review items; only an accepted one becomes a ``Play``.

A lesson needs evidence — episode ids of this bank, or the churn play and segment it is
about. An episode that may not support anything (injection markers, a provenance kept for recall
only, or instruction-shaped text from a source the bank does not trust with instructions:
``beliefs.defense.evidence.episode_hold``) is no evidence for a lesson either: a lesson resting only
on such episodes is refused, and one citing some of them waits for a person with those listed as
``held_evidence`` and is never accepted automatically. By default every lesson waits for a person. A bank may set
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
from beliefs.defense.evidence import HOLD_LABELS, episode_hold
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
    held_by_lesson = []
    for index, lesson in enumerate(lessons):
        ids = lesson.get("evidence_episode_ids") or []
        episodes = list(
            Episode.objects.filter(bank=bank, pk__in=ids).only(
                "id", "content", "metadata", "provenance", "injection_flags", "quarantine_released_at"
            )
        )
        if ids and len(episodes) != len(set(ids)):
            raise LessonWithoutEvidence(extra={"lesson": index, "reason": "unknown episode ids"})
        held = {e.pk: hold for e in episodes if (hold := episode_hold(policy=policy, episode=e)) is not None}
        has_play = bool(lesson.get("play") and lesson.get("segment"))
        if not ids and not has_play:
            raise LessonWithoutEvidence(extra={"lesson": index})
        if ids and len(held) == len(set(ids)) and not has_play:
            raise LessonWithoutEvidence(
                extra={
                    "lesson": index,
                    "reason": "no cited episode may support a lesson",
                    "held_evidence": [{"episode_id": pk, "reason": HOLD_LABELS[r]} for pk, r in sorted(held.items())],
                }
            )
        held_by_lesson.append(held)
    items = []
    with transaction.atomic():
        for lesson, held in zip(lessons, held_by_lesson, strict=True):
            payload = {**lesson, "session": session, "submitted_by": actor}
            if held:
                payload["held_evidence"] = [{"episode_id": pk, "reason": reason} for pk, reason in sorted(held.items())]
            item = ReviewItem.objects.create(
                tenant_id=bank.tenant_id,
                bank=bank,
                kind=ReviewItem.Kind.DISTILLATION,
                title=lesson["text"][:300],
                body=lesson["text"],
                payload=payload,
            )
            outcomes = _scored_outcomes(bank, lesson)
            # Citing episodes that may not support anything, a lesson always waits for a person.
            if not held and policy.auto_accept_min_outcomes and outcomes >= policy.auto_accept_min_outcomes:
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
