"""Extract: read facts out of new episodes (the stage between retain and consolidate).

Episodes are recallable the moment retain returns; extraction runs later, in a worker,
oldest first, at most ``max_episodes_per_run`` per call (the bank's throttle). Typed
events map to facts directly; free text goes to the LLM when the bank asks for it, one
is configured and the bank is under its monthly token cap, and to the keyless rules
otherwise — including when the LLM fails. A fact is stored *quarantined* (never evidence) when its
episode carries injection markers or, per the bank's trust tiers, is instruction-shaped text from a
source not trusted with instructions (``beliefs.defense.evidence``). Safe to repeat: a fact is unique per episode
and claim, and an episode is marked extracted in the same transaction as its facts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from banks.models import Bank
from banks.policy import BankPolicy, bank_policy
from beliefs.defense.evidence import fact_holds
from beliefs.extractors import FactDraft, llm, rules, structured
from beliefs.models import Episode, EpisodeExtraction, Fact, RetainBatch
from beliefs.services.llm_usage import llm_under_cap, llm_usage_record
from memoryhub import metrics
from memoryhub.embeddings import embed_texts
from memoryhub.exceptions import LLMError
from memoryhub.queues import TaskName, enqueue_on_commit

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExtractResult:
    episodes: int
    facts: int
    remaining: int
    llm_calls: int = 0
    llm_failures: int = 0
    paused: bool = False


def bank_extract(*, bank: Bank, limit: int | None = None) -> ExtractResult:
    """Extract facts from the oldest unextracted episodes of ``bank``; returns counts and what is left."""
    policy = bank_policy(bank)
    if policy.background_paused:
        return ExtractResult(0, 0, _pending(bank), paused=True)
    limit = limit or policy.max_episodes_per_run
    oldest = list(_waiting(bank).order_by("recorded_at", "episode_id").values_list("episode_id", flat=True)[:limit])
    candidates = list(
        Episode.objects.filter(bank=bank, pk__in=oldest)
        .order_by("recorded_at", "id")
        .only(
            "id",
            "content",
            "metadata",
            "subject",
            "provenance",
            "occurred_at",
            "recorded_at",
            "mentioned_start",
            "injection_flags",
            "quarantine_released_at",
        )
    )
    drafts_by_episode: dict[int, list[FactDraft]] = {}
    calls = failures = 0
    for episode in candidates:
        drafts, used_llm, failed = _drafts_for(bank, policy, episode)
        drafts_by_episode[episode.pk] = drafts
        calls += used_llm
        failures += failed
    statements = sorted({d.statement for drafts in drafts_by_episode.values() for d in drafts})
    vectors = dict(zip(statements, embed_texts(statements), strict=True)) if statements else {}

    created = 0
    with transaction.atomic():
        # Another worker may have taken some of these episodes meanwhile: only ours get facts.
        mine = list(
            _waiting(bank)
            .select_for_update(skip_locked=True)
            .filter(episode_id__in=[e.pk for e in candidates])
            .values_list("episode_id", flat=True)
        )
        by_id = {e.pk: e for e in candidates}
        rows = []
        for pk in mine:
            episode, drafts = by_id[pk], drafts_by_episode[pk]
            holds = fact_holds(
                policy=policy,
                provenance=episode.provenance,
                content=episode.content,
                metadata=episode.metadata,
                injection_flags=episode.injection_flags,
                released=episode.quarantine_released_at is not None,
                quotes=[(d.quote_start, d.quote_end) for d in drafts],
            )
            rows += [
                _fact_row(bank, episode, draft, vectors[draft.statement], held=hold is not None)
                for draft, hold in zip(drafts, holds, strict=True)
            ]
        created = len(Fact.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500))
        EpisodeExtraction.objects.filter(episode_id__in=mine).update(extracted_at=timezone.now())
    for extractor in ("structured", "rules", "llm"):
        metrics.observe_facts(extractor, sum(1 for row in rows if row.extractor == extractor))
    return ExtractResult(len(mine), created, _pending(bank), llm_calls=calls, llm_failures=failures)


def _waiting(bank: Bank):
    """The bank's episodes that wait for extraction (read from the partial index of waiting ones)."""
    return EpisodeExtraction.objects.filter(bank=bank, extracted_at__isnull=True)


def _pending(bank: Bank) -> int:
    return _waiting(bank).count()


def extraction_queue(*, bank: Bank, episodes: list[tuple[int, datetime, datetime | None]]) -> None:
    """Queue new episodes of ``bank`` for extraction: ``(episode id, recorded_at, extracted_at)`` each, the last
    ``None`` for an episode that waits (an import may bring one already extracted)."""
    EpisodeExtraction.objects.bulk_create(
        [
            EpisodeExtraction(
                episode_id=pk, tenant_id=bank.tenant_id, bank=bank, recorded_at=recorded, extracted_at=extracted
            )
            for pk, recorded, extracted in episodes
        ],
        ignore_conflicts=True,
        batch_size=1000,
    )


def _drafts_for(bank: Bank, policy: BankPolicy, episode: Episode) -> tuple[list[FactDraft], int, int]:
    """(drafts, LLM calls made, LLM failures) for one episode."""
    metadata = episode.metadata if isinstance(episode.metadata, dict) else {}
    drafts = structured.extract(episode.content, metadata)
    if metadata.get("event"):
        return drafts, 0, 0  # a typed event says what it means; its free text is a rendering of it
    if policy.llm_extract and llm.llm_configured() and llm_under_cap(bank=bank, policy=policy):
        try:
            llm_drafts, usage = llm.extract(episode.content)
        except LLMError as exc:
            logger.warning("LLM extraction failed for episode %s (%s); using rules", episode.pk, exc.extra)
            llm_usage_record(bank=bank, calls=1, failures=1)
            return drafts + rules.extract(episode.content, speaker=episode.subject), 1, 1
        llm_usage_record(bank=bank, calls=1, tokens_in=usage.tokens_in, tokens_out=usage.tokens_out)
        return drafts + llm_drafts, 1, 0
    return drafts + rules.extract(episode.content, speaker=episode.subject), 0, 0


def _fact_row(bank: Bank, episode: Episode, draft: FactDraft, vector, *, held: bool) -> Fact:
    valid_at = draft.valid_at or episode.mentioned_start or episode.occurred_at
    return Fact(
        tenant_id=bank.tenant_id,
        bank=bank,
        episode_id=episode.pk,
        subject=draft.subject[:255],
        subject_key=draft.subject_key,
        predicate=draft.predicate[:64],
        object=draft.object[:500],
        object_key=draft.object_key,
        negated=draft.negated,
        hedged=draft.hedged,
        functional=draft.functional,
        statement=draft.statement,
        quote=episode.content[draft.quote_start : draft.quote_end],
        quote_start=draft.quote_start,
        quote_end=draft.quote_end,
        extractor=draft.extractor,
        provenance=episode.provenance,
        valid_at=valid_at,
        created_at=episode.recorded_at,
        embedding=vector,
        # Injection markers, a recall echo, or an instruction from a source not trusted with them
        # (``beliefs.defense.evidence``): stored and recallable, never evidence.
        quarantined=held,
    )


def batches_mark_extracted(*, bank: Bank) -> int:
    """Stored batches of ``bank`` none of whose episodes waits for extraction any more are ``done``."""
    waiting = EpisodeExtraction.objects.filter(bank=bank, episode__batch_id=OuterRef("pk"), extracted_at__isnull=True)
    return (
        RetainBatch.objects.filter(
            bank=bank, status=RetainBatch.Status.DONE, extraction_status=RetainBatch.Status.PENDING
        )
        .exclude(Exists(waiting))
        .update(extraction_status=RetainBatch.Status.DONE)
    )


def bank_background_queue(*, bank: Bank) -> None:
    """Queue an extract → consolidate → refresh run for ``bank`` once the current transaction commits."""
    enqueue_on_commit(TaskName.EXTRACT_BANK, bank_id=bank.pk, tenant_id=bank.tenant_id)
