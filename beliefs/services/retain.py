"""Retain: store episodes so they are recallable the moment the call returns.

Synchronous retain embeds the new items, then writes the batch row and every episode
in one transaction: either the whole batch is stored or none of it. Extraction is
queued on commit. Asynchronous retain stores the validated items in a ``RetainBatch``
row and lets a worker run the same write path; the row, not the broker, is the source
of truth, so a retried request or a twice-delivered task never stores an item twice.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime
from functools import partial

import numpy as np
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from audit.services import audit_record
from banks.models import Bank
from beliefs.defense.apply import items_defend, metadata_text
from beliefs.defense.injection import injection_assessment
from beliefs.engine.rendering import RECALL_FENCE
from beliefs.models import Episode, Provenance, RetainBatch
from beliefs.services.extract import extraction_queue
from beliefs.services.forget.tombstones import erased_subjects
from beliefs.services.indexing import episode_time_fields, episodes_index
from memoryhub import metrics
from memoryhub.embeddings import embed_texts
from memoryhub.exceptions import IdempotencyKeyReused
from memoryhub.queues import TaskName, enqueue_on_commit
from memoryhub.tokens import count_tokens


@dataclass(frozen=True)
class RetainItem:
    """One thing to remember. ``occurred_at`` defaults to the time of the call."""

    content: str
    occurred_at: datetime | None = None
    source: str = "api"
    subject: str = ""
    thread: str = ""
    provenance: str = Provenance.USER
    metadata: dict = field(default_factory=dict)
    idempotency_key: str | None = None

    def to_json(self) -> dict:
        data = asdict(self)
        data["occurred_at"] = self.occurred_at.isoformat() if self.occurred_at else None
        return data

    @classmethod
    def from_json(cls, data: dict) -> RetainItem:
        occurred_at = parse_datetime(data["occurred_at"]) if data.get("occurred_at") else None
        return cls(**{**data, "occurred_at": occurred_at})


@dataclass(frozen=True)
class RetainOutcome:
    episode_id: int | None
    status: str  # "created", "duplicate", or "suppressed" (the subject was erased)


@dataclass(frozen=True)
class RetainResult:
    """What a retain call did and cost."""

    batch_id: int
    outcomes: tuple[RetainOutcome, ...]
    created: int
    duplicates: int
    tokens: int
    embedded: int
    elapsed_ms: float
    replayed: bool = False
    redacted: dict = field(default_factory=dict)


def item_dedupe_key(item: RetainItem) -> str:
    """The caller's idempotency key, else a hash of what makes two items the same item."""
    if item.idempotency_key:
        return f"key:{item.idempotency_key}"
    identity = json.dumps(
        [item.content, item.occurred_at.isoformat() if item.occurred_at else None, item.source, item.subject]
        + ([item.thread] if item.thread else []),
        ensure_ascii=False,
    )
    return "hash:" + hashlib.sha256(identity.encode()).hexdigest()


def request_fingerprint(items: list[RetainItem]) -> str:
    payload = json.dumps([item.to_json() for item in items], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def retain(
    *, bank: Bank, items: list[RetainItem], idempotency_key: str | None = None, actor: str | None = None
) -> RetainResult:
    """Store ``items`` in ``bank`` in one transaction; duplicates are reported, not stored twice.

    A retain made for ``actor`` (a person or key, through the API) is audited with the batch.

    With an ``idempotency_key`` already used for the same items, the first call's result
    is returned (``replayed=True``); with different items it raises ``IdempotencyKeyReused``.
    """
    started = time.perf_counter()
    items, redacted = items_defend(bank=bank, items=items)
    fingerprint = request_fingerprint(items)
    replay = partial(_replay_if_known, bank=bank, idempotency_key=idempotency_key, fingerprint=fingerprint)
    replayed = replay(started=started)
    if replayed is not None:
        return replayed

    keys, vectors = _embed_new(bank, items)
    now = timezone.now()

    def store() -> RetainResult:
        batch = _new_batch(
            bank=bank,
            idempotency_key=idempotency_key,
            fingerprint=fingerprint,
            mode=RetainBatch.Mode.SYNC,
            status=RetainBatch.Status.PROCESSING,
            item_count=len(items),
            started_at=now,
            attempts=1,
        )
        outcomes, tokens = _store(bank=bank, batch=batch, items=items, keys=keys, vectors=vectors, now=now)
        _finish(batch, outcomes, tokens=tokens, embedded=len(vectors), started=started, redacted=redacted)
        if actor:
            audit_record(
                tenant=bank.tenant_id,
                bank=bank,
                action="episodes.retained",
                target=f"retain_batch:{batch.pk}",
                details={
                    "created": batch.created_count,
                    "duplicates": batch.duplicate_count,
                    "redacted": batch.usage.get("redacted", {}),
                },
                actor=actor,
            )
        return _result(batch, outcomes, started)

    return _first_writer_wins(store, lambda: replay(started=started))


def retain_async_submit(
    *, bank: Bank, items: list[RetainItem], idempotency_key: str | None = None, actor: str | None = None
) -> RetainBatch:
    """Queue ``items`` for a worker; returns the batch to poll. Same key, same items: the same batch.

    A new batch queued for ``actor`` is audited.
    """
    # Scanned before the batch row holds the items: sensitive values never reach storage or the queue.
    items, _ = items_defend(bank=bank, items=items)
    fingerprint = request_fingerprint(items)
    existing = _batch_for_key(bank=bank, idempotency_key=idempotency_key, fingerprint=fingerprint)
    if existing is not None:
        return existing

    def queue() -> RetainBatch:
        batch = _new_batch(
            bank=bank,
            idempotency_key=idempotency_key,
            fingerprint=fingerprint,
            mode=RetainBatch.Mode.ASYNC,
            status=RetainBatch.Status.PENDING,
            items=[item.to_json() for item in items],
            item_count=len(items),
        )
        enqueue_on_commit(TaskName.PROCESS_RETAIN_BATCH, batch_id=batch.pk, tenant_id=bank.tenant_id)
        if actor:
            audit_record(
                tenant=bank.tenant_id,
                bank=bank,
                action="episodes.retain_queued",
                target=f"retain_batch:{batch.pk}",
                details={"items": batch.item_count},
                actor=actor,
            )
        return batch

    return _first_writer_wins(
        queue, lambda: _batch_for_key(bank=bank, idempotency_key=idempotency_key, fingerprint=fingerprint)
    )


def retain_batch_process(*, batch_id: int) -> RetainBatch:
    """Store a queued batch. Safe to run twice or concurrently: the second run finds it done."""
    started = time.perf_counter()
    with transaction.atomic():
        batch = RetainBatch.objects.select_for_update().select_related("bank").get(pk=batch_id)
        if batch.status == RetainBatch.Status.DONE:
            return batch
        batch.status = RetainBatch.Status.PROCESSING
        batch.attempts += 1
        batch.started_at = timezone.now()
        batch.save(update_fields=["status", "attempts", "started_at"])

    bank = batch.bank
    items = [RetainItem.from_json(data) for data in batch.items]
    keys, vectors = _embed_new(bank, items)
    with transaction.atomic():
        batch = RetainBatch.objects.select_for_update().get(pk=batch_id)
        if batch.status == RetainBatch.Status.DONE:
            return batch
        outcomes, tokens = _store(bank=bank, batch=batch, items=items, keys=keys, vectors=vectors, now=timezone.now())
        batch.items = []  # the episodes hold the content now
        _finish(batch, outcomes, tokens=tokens, embedded=len(vectors), started=started)
    return batch


def retain_batch_fail(*, batch_id: int, reason: str) -> None:
    """Mark a queued batch failed (the reason must not quote content)."""
    RetainBatch.objects.filter(pk=batch_id).exclude(status=RetainBatch.Status.DONE).update(
        status=RetainBatch.Status.FAILED, error=reason[:500], finished_at=timezone.now()
    )


def _replay_if_known(
    *, bank: Bank, idempotency_key: str | None, fingerprint: str, started: float
) -> RetainResult | None:
    batch = _batch_for_key(bank=bank, idempotency_key=idempotency_key, fingerprint=fingerprint)
    if batch is None:
        return None
    outcomes = [RetainOutcome(episode_id=r["episode_id"], status=r["status"]) for r in batch.results]
    return RetainResult(
        batch_id=batch.pk,
        outcomes=tuple(outcomes),
        created=0,
        duplicates=len(outcomes),
        tokens=0,
        embedded=0,
        elapsed_ms=(time.perf_counter() - started) * 1000,
        replayed=True,
    )


def _first_writer_wins(write, replay):
    """``write()`` in one transaction; when a concurrent request with the same Idempotency-Key committed first
    (its batch row's unique key refuses ours), answer as that request did: ``replay()``."""
    try:
        with transaction.atomic():
            return write()
    except IntegrityError:
        answer = replay()
        if answer is None:
            raise
        return answer


def _new_batch(*, bank: Bank, idempotency_key: str | None, fingerprint: str, **fields) -> RetainBatch:
    return RetainBatch.objects.create(
        tenant_id=bank.tenant_id,
        bank=bank,
        idempotency_key=idempotency_key or f"auto:{uuid.uuid4()}",
        request_hash=fingerprint,
        **fields,
    )


def _batch_for_key(*, bank: Bank, idempotency_key: str | None, fingerprint: str) -> RetainBatch | None:
    if not idempotency_key:
        return None
    batch = RetainBatch.objects.filter(bank=bank, idempotency_key=idempotency_key).first()
    if batch is not None and batch.request_hash != fingerprint:
        raise IdempotencyKeyReused()
    return batch


def _embed_new(bank: Bank, items: list[RetainItem]) -> tuple[list[str], dict[str, np.ndarray]]:
    """Dedupe keys of ``items`` and embeddings of those not stored yet (each distinct key once)."""
    keys = [item_dedupe_key(item) for item in items]
    known = set(Episode.objects.filter(bank=bank, dedupe_key__in=set(keys)).values_list("dedupe_key", flat=True))
    todo: dict[str, str] = {}
    for item, key in zip(items, keys, strict=True):
        if key not in known and key not in todo:
            todo[key] = item.content
    vectors = embed_texts(list(todo.values()))
    return keys, dict(zip(todo.keys(), vectors, strict=True))


def _store(
    *, bank: Bank, batch: RetainBatch, items: list[RetainItem], keys: list[str], vectors: dict, now: datetime
) -> tuple[list[RetainOutcome], int]:
    """Insert the new episodes and index them; returns per-item outcomes and the items' total tokens."""
    tokens = {item.content: count_tokens(item.content) for item in items}
    screen = items_screen(bank=bank, items=items, keys=keys)
    erased = screen.erased
    rows = []
    seen: set[str] = set()
    for item, key in zip(items, keys, strict=True):
        if key in seen or key not in vectors or item.subject in erased:
            continue
        seen.add(key)
        occurred_at = item.occurred_at or now
        rows.append(episode_row(bank=bank, item=item, key=key, screen=screen, occurred_at=occurred_at, recorded_at=now,
                                token_count=tokens[item.content], embedding=vectors[key], batch=batch,
                                **episode_time_fields(item.content, occurred_at)))  # fmt: skip
    # ON CONFLICT DO NOTHING: a concurrent retain of the same item wins, and we report a duplicate.
    Episode.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
    stored = dict(Episode.objects.filter(bank=bank, dedupe_key__in=set(keys)).values_list("dedupe_key", "id"))
    created_rows = dict(Episode.objects.filter(bank=bank, batch=batch).values_list("dedupe_key", "id"))
    created_by_us, created_ids = set(created_rows), sorted(created_rows.values())
    episodes_index(bank=bank, episode_ids=created_ids, index_time=False)
    extraction_queue(bank=bank, episodes=[(pk, now, None) for pk in created_ids])
    outcomes = []
    reported: set[str] = set()
    for item, key in zip(items, keys, strict=True):
        if item.subject in erased and key not in stored:
            outcomes.append(RetainOutcome(episode_id=None, status="suppressed"))  # an erased subject stays erased
            continue
        status = "created" if key in created_by_us and key not in reported else "duplicate"
        reported.add(key)
        outcomes.append(RetainOutcome(episode_id=stored[key], status=status))
    return outcomes, sum(tokens[item.content] for item in items)


@dataclass(frozen=True)
class Screening:
    """What retain and import learn about a set of items before storing them."""

    erased: set[str]  # subjects erased from the bank: their items stay out
    echoes: dict[str, int | None]  # dedupe key → the episode an item echoes (``echo_sources``)


def items_screen(*, bank: Bank, items: list[RetainItem], keys: list[str]) -> Screening:
    """Which ``items`` (stored under ``keys``) name an erased subject, and which repeat what recall handed out."""
    hashes = [content_hash(item.content) for item in items]
    return Screening(
        erased=erased_subjects(bank=bank, subjects={item.subject for item in items if item.subject}),
        echoes=echo_sources(bank, items, keys, hashes),
    )


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()


def episode_row(*, bank: Bank, item: RetainItem, key: str, screen: Screening, **fields) -> Episode:
    """An unsaved episode of ``item`` stored under ``key``, with the caller's ``fields`` (times, tokens, vector).

    Its Memory Defense state (injection flags and spans, whether it echoes recall) is computed here from the
    item and ``screen``, never taken from the caller: retain and import store untrusted text the same way.
    """
    flags, spans = injection_assessment(item.content, metadata_text(item.metadata))
    echoes = screen.echoes
    return Episode(
        tenant_id=bank.tenant_id,
        bank=bank,
        content=item.content,
        source=item.source,
        subject=item.subject,
        thread=item.thread,
        provenance=item.provenance,
        metadata=item.metadata,
        content_hash=content_hash(item.content),
        dedupe_key=key,
        injection_flags=flags + (["recall_echo"] if key in echoes else []),
        injection_spans=spans,
        echo_of_id=echoes.get(key),
        **fields,
    )


def echo_sources(bank: Bank, items: list[RetainItem], keys: list[str], hashes: list[str]) -> dict[str, int | None]:
    """Items that repeat what recall handed out: keyed by dedupe key, with the episode they echo when known.

    An agent-written item whose text equals a stored episode's, or any item carrying the
    fence of a prompt-rendered recall, is an echo: stored, but never evidence.
    """
    agent_hashes = [h for item, h in zip(items, hashes, strict=True) if item.provenance == Provenance.AGENT]
    known = (
        dict(Episode.objects.filter(bank=bank, content_hash__in=agent_hashes).values_list("content_hash", "id"))
        if agent_hashes
        else {}
    )
    echoes: dict[str, int | None] = {}
    for item, key, content_hash in zip(items, keys, hashes, strict=True):
        if item.provenance == Provenance.AGENT and content_hash in known:
            echoes[key] = known[content_hash]
        elif RECALL_FENCE in item.content:
            echoes[key] = None
    return echoes


def _finish(
    batch: RetainBatch,
    outcomes: list[RetainOutcome],
    *,
    tokens: int,
    embedded: int,
    started: float,
    redacted: dict | None = None,
) -> None:
    created = sum(1 for outcome in outcomes if outcome.status == "created")
    batch.status = RetainBatch.Status.DONE
    batch.created_count = created
    batch.duplicate_count = sum(1 for outcome in outcomes if outcome.status == "duplicate")
    batch.results = [{"episode_id": o.episode_id, "status": o.status} for o in outcomes]
    batch.usage = {
        "tokens": tokens,
        "embedded": embedded,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 2),
        "redacted": redacted or {},
    }
    batch.finished_at = timezone.now()
    batch.error = ""
    batch.save()
    duplicates = batch.duplicate_count
    transaction.on_commit(lambda: metrics.observe_retain(created, duplicates))
    if created:  # one extraction run per bank and burst, however many batches arrive (memoryhub.queues)
        enqueue_on_commit(TaskName.EXTRACT_BANK, bank_id=batch.bank_id, tenant_id=batch.tenant_id)


def _result(batch: RetainBatch, outcomes: list[RetainOutcome], started: float) -> RetainResult:
    return RetainResult(
        batch_id=batch.pk,
        outcomes=tuple(outcomes),
        created=batch.created_count,
        duplicates=batch.duplicate_count,
        tokens=batch.usage["tokens"],
        embedded=batch.usage["embedded"],
        elapsed_ms=(time.perf_counter() - started) * 1000,
        redacted=batch.usage.get("redacted", {}),
    )
