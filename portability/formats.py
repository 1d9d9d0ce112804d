"""Foreign formats read by import, turned into MemoryHub ``episode`` records.

- ``jsonl``: one retain item per line — ``{"content", "occurred_at"?, "source"?,
  "subject"?, "thread"?, "metadata"?, "provenance"?, "idempotency_key"?}``;
  provenance defaults to ``imported``.
- ``mem0``: one mem0 memory per line, as its export and ``get_all()`` return them —
  ``{"id", "memory", "user_id"?, "agent_id"?, "run_id"?, "metadata"?, "categories"?,
  "created_at"?, "hash"?}``. The memory becomes the content, the user (else the
  agent) the subject, the run the thread; the mem0 id keeps a re-import idempotent.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from beliefs.models import Provenance
from beliefs.services.retain import RetainItem, item_dedupe_key
from portability.records import RecordInvalid, parse_time

FORMATS = ("memoryhub", "jsonl", "mem0")
_PLAIN_FIELDS = {"content", "occurred_at", "source", "subject", "thread", "metadata", "provenance", "idempotency_key"}


def _text(data: dict, name: str, *, required: bool = False, limit: int = 255) -> str:
    value = data.get(name)
    if value is None or value == "":
        if required:
            raise RecordInvalid(f"{name} is required", name)
        return ""
    if not isinstance(value, str):
        raise RecordInvalid(f"{name} must be a string", name)
    if len(value) > limit:
        raise RecordInvalid(f"{name} is longer than {limit} characters", name)
    return value


def plain_to_record(data: Any, *, now: datetime) -> dict:
    if not isinstance(data, dict):
        raise RecordInvalid("each line must be a JSON object")
    unknown = sorted(set(data) - _PLAIN_FIELDS)
    if unknown:
        raise RecordInvalid(f"unknown field {unknown[0]!r}", unknown[0])
    content = _text(data, "content", required=True, limit=1_000_000)
    occurred_at = parse_time(data["occurred_at"], "occurred_at") if data.get("occurred_at") else now
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise RecordInvalid("metadata must be an object", "metadata")
    provenance = data.get("provenance") or Provenance.IMPORTED
    if provenance not in Provenance.values:
        raise RecordInvalid(f"provenance must be one of {', '.join(Provenance.values)}", "provenance")
    item = RetainItem(
        content=content,
        occurred_at=occurred_at,
        source=_text(data, "source", limit=64) or "import",
        subject=_text(data, "subject"),
        thread=_text(data, "thread", limit=128),
        provenance=provenance,
        metadata=metadata,
        idempotency_key=_text(data, "idempotency_key", limit=128) or None,
    )
    return _episode_record(item, now=now)


def mem0_to_record(data: Any, *, now: datetime) -> dict:
    if not isinstance(data, dict):
        raise RecordInvalid("each line must be a mem0 memory object")
    content = _text(data, "memory", required=True, limit=1_000_000)
    created = data.get("created_at")
    occurred_at = parse_time(created, "created_at") if created else now
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise RecordInvalid("metadata must be an object", "metadata")
    extra = {key: data[key] for key in ("id", "agent_id", "run_id", "app_id", "categories", "hash") if data.get(key)}
    memory_id = _text(data, "id", limit=100)
    item = RetainItem(
        content=content,
        occurred_at=occurred_at,
        source="mem0",
        subject=_text(data, "user_id") or _text(data, "agent_id"),
        thread=_text(data, "run_id", limit=128),
        provenance=Provenance.IMPORTED,
        metadata={**metadata, "mem0": extra} if extra else metadata,
        idempotency_key=f"mem0:{memory_id}" if memory_id else None,
    )
    return _episode_record(item, now=now)


def _episode_record(item: RetainItem, *, now: datetime) -> dict:
    return {
        "type": "episode",
        "ref": item_dedupe_key(item),
        "content": item.content,
        "occurred_at": item.occurred_at,
        "recorded_at": now,
        "source": item.source,
        "subject": item.subject,
        "thread": item.thread,
        "provenance": item.provenance,
        "metadata": item.metadata,
    }
