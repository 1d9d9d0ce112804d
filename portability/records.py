"""The MemoryHub export format: one JSON object per line, no database ids.

The first line is a ``header`` (format, version, the bank's settings, the embedding
model). Then records in dependency order: ``episode``, ``fact``, ``fact_invalidation``,
``belief``, ``evidence``, ``belief_version``, ``review_item``, ``play``, ``mental_model``.

Records refer to each other by natural keys that are unique in any bank, so a file
can be imported in independent batches and into a bank with other rows already in it:

- an episode by its dedupe key (``ref``), which also makes a repeated import a no-op;
- a fact by ``{episode, subject_key, predicate, object_key, negated}``;
- a belief by its ``key``; evidence by ``{episode, stance}`` within its belief;
- a review item by ``{kind, title, created_at}``.

Embeddings travel as base64 little-endian float32 when the export includes them; an
importing server whose embedding model differs recomputes them.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from django.utils.dateparse import parse_datetime

FORMAT = "memoryhub"
VERSION = 1
#: Record types in the order an import writes them (and an export emits them).
RECORD_TYPES = (
    "episode",
    "fact",
    "fact_invalidation",
    "belief",
    "evidence",
    "belief_version",
    "review_item",
    "play",
    "mental_model",
)
FACT_KEY_FIELDS = ("episode", "subject_key", "predicate", "object_key", "negated")
#: Fields Memory Defense scans on import, per record type: the display text and the keys built from it
#: (a fact's or belief's subject and object keys, a belief's key, and every reference to those keys, so a
#: reference still matches the key it names once both are redacted the same way).
TEXT_FIELDS = {
    "episode": ("content", "metadata"),
    "fact": ("subject", "subject_key", "object", "object_key", "statement", "quote"),
    "fact_invalidation": ("fact", "invalidated_by"),
    "belief": ("key", "subject", "subject_key", "object", "object_key", "statement"),
    "evidence": ("belief", "fact", "quote"),
    "belief_version": ("belief", "old_statement", "new_statement"),
    "review_item": ("title", "body", "comment", "payload", "belief"),
    "play": ("text", "play", "segment", "signature"),
    "mental_model": ("question",),
}
#: Inside a fact reference (``{episode, subject_key, predicate, object_key, negated}``), the fields scanned.
FACT_KEY_TEXT = ("subject_key", "object_key")

# field -> (python types accepted, required)
_STR, _INT, _NUM, _BOOL = (str,), (int,), (int, float), (bool,)
_SPECS: dict[str, dict[str, tuple[tuple, bool]]] = {
    "episode": {
        "ref": (_STR, True),
        "content": (_STR, True),
        "occurred_at": (_STR, True),
        "recorded_at": (_STR, True),
        "source": (_STR, False),
        "subject": (_STR, False),
        "thread": (_STR, False),
        "provenance": (_STR, False),
        "metadata": ((dict,), False),
    },
    "fact": {
        "episode": (_STR, True),
        "subject": (_STR, True),
        "subject_key": (_STR, True),
        "predicate": (_STR, True),
        "object": (_STR, True),
        "object_key": (_STR, True),
        "statement": (_STR, True),
        "quote": (_STR, True),
        "quote_start": (_INT, True),
        "quote_end": (_INT, True),
        "extractor": (_STR, True),
        "valid_at": (_STR, True),
        "created_at": (_STR, True),
    },
    "fact_invalidation": {"fact": ((dict,), True), "invalidated_by": ((dict,), True)},
    "belief": {
        "key": (_STR, True),
        "subject": (_STR, True),
        "subject_key": (_STR, True),
        "predicate": (_STR, True),
        "object": (_STR, True),
        "object_key": (_STR, True),
        "statement": (_STR, True),
        "status": (_STR, True),
        "confidence": (_NUM, True),
        "proof_count": (_INT, True),
        "first_seen_at": (_STR, True),
        "last_confirmed_at": (_STR, True),
        "valid_from": (_STR, True),
        "formed_at": (_STR, True),
    },
    "evidence": {
        "belief": (_STR, True),
        "episode": (_STR, True),
        "stance": (_STR, True),
        "quote": (_STR, True),
        "quote_start": (_INT, True),
        "quote_end": (_INT, True),
        "weight": (_NUM, True),
        "observed_at": (_STR, True),
        "recorded_at": (_STR, True),
    },
    "belief_version": {
        "belief": (_STR, True),
        "version": (_INT, True),
        "cause": (_STR, True),
        "new_statement": (_STR, True),
        "new_confidence": (_NUM, True),
        "new_proof_count": (_INT, True),
        "new_status": (_STR, True),
        "effective_at": (_STR, True),
    },
    "review_item": {"kind": (_STR, True), "title": (_STR, True), "created_at": (_STR, True)},
    "play": {"text": (_STR, True)},
    "mental_model": {"name": (_STR, True), "question": (_STR, True)},
}
_DATETIME_FIELDS = {
    "occurred_at",
    "recorded_at",
    "extracted_at",
    "quarantine_released_at",
    "valid_at",
    "invalid_at",
    "created_at",
    "expired_at",
    "consolidated_at",
    "first_seen_at",
    "last_confirmed_at",
    "valid_from",
    "valid_to",
    "formed_at",
    "observed_at",
    "effective_at",
    "decided_at",
}


class RecordInvalid(ValueError):
    """A line that is not a valid record; ``field`` names the culprit when there is one."""

    def __init__(self, reason: str, field: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.field = field


@dataclass
class Record:
    line: int
    type: str
    data: dict[str, Any]


def check_record(data: Any) -> str:
    """The record's type after checking its fields (``RecordInvalid`` otherwise)."""
    if not isinstance(data, dict):
        raise RecordInvalid("each line must be a JSON object")
    kind = data.get("type")
    if kind == "header":
        return kind
    if kind not in _SPECS:
        raise RecordInvalid(f"unknown record type {str(kind)[:40]!r}", "type")
    for name, (types, required) in _SPECS[kind].items():
        value = data.get(name)
        if value is None:
            if required:
                raise RecordInvalid(f"{kind}.{name} is required", name)
            continue
        if not isinstance(value, types) or (types is not _BOOL and isinstance(value, bool)):
            raise RecordInvalid(f"{kind}.{name} has the wrong type", name)
    for name in _DATETIME_FIELDS & set(data):
        if data[name] is not None:
            data[name] = parse_time(data[name], f"{kind}.{name}")
    return kind


class NotJSONNumber(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity``: Python's ``json`` reads them, JSON has no such numbers."""


def _no_constant(name: str):
    raise NotJSONNumber(f"{name} is not a JSON number")


def loads(raw: bytes) -> Any:
    """One line's JSON. ``NaN`` and ``Infinity`` are refused (the API's own parser refuses them too)."""
    return json.loads(raw, parse_constant=_no_constant)


def parse_time(value: Any, name: str) -> datetime:
    parsed = parse_datetime(value) if isinstance(value, str) else None
    if parsed is None or parsed.tzinfo is None:
        raise RecordInvalid(f"{name} must be an ISO 8601 time with a zone", name.rsplit(".", 1)[-1])
    return parsed


def vector_encode(vector) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode()


def vector_decode(text: str, dimensions: int) -> np.ndarray:
    try:
        vector = np.frombuffer(base64.b64decode(text, validate=True), dtype="<f4")
    except (ValueError, TypeError) as exc:
        raise RecordInvalid("embedding is not base64 float32", "embedding") from exc
    if vector.shape != (dimensions,) or not np.isfinite(vector).all():
        raise RecordInvalid(f"embedding must hold {dimensions} finite numbers", "embedding")
    return vector.astype(np.float32)
