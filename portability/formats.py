"""Episodes as import reads them: every format becomes a retain item checked exactly as retain checks it.

- ``jsonl``: one retain item per line — ``{"content", "occurred_at"?, "source"?,
  "subject"?, "thread"?, "metadata"?, "provenance"?, "idempotency_key"?}``;
  provenance defaults to ``imported``.
- ``mem0``: one mem0 memory per line, as its export and ``get_all()`` return them —
  ``{"id", "memory", "user_id"?, "agent_id"?, "run_id"?, "metadata"?, "categories"?,
  "created_at"?, "hash"?}``. The memory becomes the content, the user (else the
  agent) the subject, the run the thread; the mem0 id keeps a re-import idempotent.
- ``memoryhub``: an ``episode`` record of an export (``portability.records``).

Each goes through retain's own input serializer (``RetainItemInputSerializer``), so an
imported episode meets the same content, metadata-size, event and source rules, and its
subject is normalised the same way (trimmed), as one sent to ``retain``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rest_framework.exceptions import ErrorDetail

from beliefs.api.serializers import RetainItemInputSerializer
from beliefs.models import Provenance
from beliefs.services.retain import RetainItem
from portability.records import RecordInvalid

FORMATS = ("memoryhub", "jsonl", "mem0")
_MEM0_EXTRA = ("id", "agent_id", "run_id", "app_id", "categories", "hash")


def retain_item(data: dict) -> RetainItem:
    """``data`` (retain's item fields) checked by retain's serializer; ``RecordInvalid`` names the first problem."""
    serializer = RetainItemInputSerializer(data=data)
    if not serializer.is_valid():
        name, message = first_error(serializer.errors)
        raise RecordInvalid(f"{name}: {message}", name)
    values = dict(serializer.validated_data)
    return RetainItem(**values)


def first_error(errors, path: str = "") -> tuple[str, str]:
    if isinstance(errors, dict):
        for key, value in errors.items():
            return first_error(value, f"{path}.{key}" if path else str(key))
    if isinstance(errors, list) and errors:
        return first_error(errors[0], path)
    text = str(errors) if isinstance(errors, ErrorDetail | str) else "invalid"
    return path.split(".", 1)[0] or "record", text[:200]


def plain_to_record(data: Any, *, now: datetime) -> dict:
    if not isinstance(data, dict):
        raise RecordInvalid("each line must be a JSON object")
    fields = {**data, "provenance": data.get("provenance") or Provenance.IMPORTED}
    if not fields.get("source"):
        fields["source"] = "import"
    return episode_record(retain_item(fields), now=now)


def mem0_to_record(data: Any, *, now: datetime) -> dict:
    if not isinstance(data, dict):
        raise RecordInvalid("each line must be a mem0 memory object")
    memory_id = data.get("id")
    if memory_id is not None and not (isinstance(memory_id, str | int) and not isinstance(memory_id, bool)):
        raise RecordInvalid("id must be a string", "id")
    memory_id = str(memory_id)[:100] if memory_id not in (None, "") else None
    subject = data.get("user_id") or data.get("agent_id") or ""
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise RecordInvalid("metadata must be an object", "metadata")
    extra = {key: data[key] for key in _MEM0_EXTRA if data.get(key)}
    fields = {
        "content": data.get("memory"),
        "source": "mem0",
        "subject": subject,
        "thread": data.get("run_id") or "",
        "provenance": Provenance.IMPORTED,
        "metadata": {**metadata, "mem0": extra} if extra else metadata,
    }
    if data.get("created_at"):
        fields["occurred_at"] = data["created_at"]
    if memory_id:
        fields["idempotency_key"] = f"mem0:{memory_id}"
    if fields["content"] is None:
        raise RecordInvalid("memory is required", "memory")
    return episode_record(retain_item(fields), now=now)


def episode_record(item: RetainItem, *, now: datetime, ref: str | None = None) -> dict:
    """The episode record an item becomes. Without ``ref`` the writer uses the dedupe key retain would compute
    (after Memory Defense has run, as retain does)."""
    return {
        "type": "episode",
        "ref": ref,
        "content": item.content,
        "occurred_at": item.occurred_at or now,
        "recorded_at": now,
        "source": item.source,
        "subject": item.subject,
        "thread": item.thread,
        "provenance": item.provenance,
        "metadata": item.metadata,
        "item": item,
    }
