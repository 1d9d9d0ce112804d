"""Imported episodes: stored as retain stores them, with their security state computed here, never read from the file.

An imported episode is untrusted text. Its injection flags and spans come from the same
detectors retain runs, a recall echo is recognised the way retain recognises one, and it
starts quarantined when flagged: ``injection_flags``, ``injection_spans``, ``echo_of``,
``quarantine_released_at`` and ``quarantined`` in a file are never read. An erased subject
stays erased. ``recorded_at`` is the time of the import (a file cannot back-date what the
bank knew when, which ``as_of`` recall and the audit rely on), and the episode waits for
extraction, unless an admin imports the file as trusted (``trust_file``), which keeps
the file's ``recorded_at`` and ``extracted_at`` so that a moved bank keeps its history.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections import Counter

from django.utils import timezone

from beliefs.models import Episode, RetainBatch
from beliefs.services.extract import extraction_queue
from beliefs.services.indexing import episode_time_fields, episodes_index
from beliefs.services.retain import RetainItem, episode_row, item_dedupe_key, items_screen
from memoryhub.tokens import count_tokens
from portability.records import Record
from portability.services.writers.common import Context, imported_ref


def episode_key(ctx: Context, ref: str | None, item: RetainItem) -> str:
    """The dedupe key an imported episode is stored under.

    A trusted file's key is kept; so is an idempotency key (``key:…``, which any retain may
    choose). A content key must be the one retain computes for this very item; any other key
    goes into the import namespace (``imported_ref``), so a file cannot occupy the key of text
    it does not hold.
    """
    if ref is None:
        return item_dedupe_key(item)
    if ctx.trusted or ref.startswith("key:"):
        return ref
    if ref in (item_dedupe_key(item), item_dedupe_key(dataclasses.replace(item, occurred_at=None))):
        return ref
    return imported_ref(ref)


def write_episodes(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    items: list[RetainItem] = []
    keys: list[str] = []
    for record in records:
        d = record.data
        # Memory Defense has run on content and metadata: the item is what is stored.
        item = dataclasses.replace(d["item"], content=d["content"], metadata=d.get("metadata") or {})
        items.append(item)
        keys.append(episode_key(ctx, d.get("ref"), item))
    known = _stored(bank, keys)
    screen = items_screen(bank=bank, items=items, keys=keys)
    rows, seen, created, queued = [], set(known), Counter(), {}
    for record, item, key in zip(records, items, keys, strict=True):
        d = record.data
        if key in seen or item.subject in screen.erased:
            created["episode_suppressed"] += item.subject in screen.erased and key not in seen
            continue
        seen.add(key)
        recorded_at, extracted_at = (d["recorded_at"], d.get("extracted_at")) if ctx.trusted else (ctx.now, None)
        queued[key] = (recorded_at, extracted_at)
        rows.append(episode_row(bank=bank, item=item, key=key, screen=screen, occurred_at=d["occurred_at"],
                                recorded_at=recorded_at, token_count=count_tokens(item.content),
                                embedding=d["embedding"],
                                **episode_time_fields(item.content, d["occurred_at"])))  # fmt: skip
    # The batch row marks what this import inserted (a concurrent retain of the same item wins the conflict).
    batch = RetainBatch.objects.create(
        tenant_id=bank.tenant_id,
        bank=bank,
        idempotency_key=f"import:{uuid.uuid4()}",
        request_hash="import",
        mode=RetainBatch.Mode.SYNC,
        status=RetainBatch.Status.DONE,
        item_count=len(records),
        finished_at=timezone.now(),
    )
    for row in rows:
        row.batch = batch
    Episode.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
    ids = dict(Episode.objects.filter(bank=bank, batch=batch).values_list("dedupe_key", "id"))
    RetainBatch.objects.filter(pk=batch.pk).update(created_count=len(ids), duplicate_count=len(records) - len(ids))
    episodes_index(bank=bank, episode_ids=sorted(ids.values()), index_time=False)  # (inserted with their times)
    extraction_queue(bank=bank, episodes=[(pk, *queued[key]) for key, pk in sorted(ids.items())])
    created["episode"] += len(ids)
    created["episode_unextracted"] += sum(1 for key in ids if queued[key][1] is None)
    return +created, len(records) - len(ids) - created["episode_suppressed"]


def _stored(bank, keys: list[str]) -> set[str]:
    return set(Episode.objects.filter(bank=bank, dedupe_key__in=set(keys)).values_list("dedupe_key", flat=True))
