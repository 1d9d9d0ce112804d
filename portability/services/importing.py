"""Import: JSON lines into a bank, batch by batch, each batch all or nothing.

Lines are read as a stream and handled ``batch_size`` at a time. Every line of a batch
is parsed and checked first; then the batch is written in one transaction (a savepoint
inside a request). A bad line raises ``ImportLineInvalid`` with its line number and
the counts stored by earlier batches; nothing of its own batch is stored. Records are
matched by natural keys (``portability.records``), so importing the same file twice,
or resuming after a fix, stores nothing twice.

Imported episode text passes through the bank's Memory Defense like any retain.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from django.db import DatabaseError, transaction
from django.utils import timezone

from banks.models import Bank
from banks.policy import bank_policy
from beliefs.defense.apply import scrub_value
from beliefs.models import MentalModel
from beliefs.services.extract import bank_background_queue
from beliefs.services.mental_models import mental_model_refresh
from memoryhub import metrics
from memoryhub.embeddings import embed_texts
from memoryhub.exceptions import ImportLineInvalid, MemoryDefenseBlocked
from portability.formats import mem0_to_record, plain_to_record
from portability.records import FORMAT, RECORD_TYPES, TEXT_FIELDS, VERSION, Record, RecordInvalid, check_record
from portability.services import writers
from portability.services.exporting import _model_name

MAX_LINE_BYTES = 4 * 1024 * 1024


@dataclass
class ImportResult:
    format: str
    lines: int = 0
    records: int = 0
    batches: int = 0
    created: Counter = field(default_factory=Counter)
    duplicates: Counter = field(default_factory=Counter)
    redacted: Counter = field(default_factory=Counter)
    settings_applied: bool = False
    extraction_queued: bool = False

    def as_dict(self) -> dict:
        return {
            "format": self.format,
            "lines": self.lines,
            "records": self.records,
            "batches": self.batches,
            "created": dict(sorted((+self.created).items())),
            "duplicates": dict(sorted((+self.duplicates).items())),
            "redacted": dict(sorted((+self.redacted).items())),
            "settings_applied": self.settings_applied,
            "extraction_queued": self.extraction_queued,
        }


@dataclass
class _State:
    use_vectors: bool = False
    header_seen: bool = False
    mental_models: set = field(default_factory=set)


def bank_import(
    *,
    bank: Bank,
    lines: Iterable[bytes],
    format: str = FORMAT,
    line_offset: int = 0,
    batch_size: int = 500,
    apply_settings: bool = False,
) -> ImportResult:
    """Import ``lines`` into ``bank``; earlier batches stay stored when a later line is bad."""
    result = ImportResult(format=format)
    state = _State()
    now = timezone.now()
    for batch in _batches(lines, batch_size, line_offset, result):
        records = [
            r
            for r in (_parse(line, raw, format, now, state, bank, apply_settings, result, batch) for line, raw in batch)
            if r
        ]
        if not records:
            continue
        try:
            with transaction.atomic():
                created, duplicates, redacted = _write(bank, records, state)
        except _LineError as exc:
            raise _invalid(exc.line, exc.reason, batch, result, field=exc.field) from None
        except MemoryDefenseBlocked as exc:
            exc.extra = {**exc.extra, "batch": _span(batch), "stored": result.as_dict()}
            raise
        except DatabaseError as exc:
            raise _invalid(
                batch[0][0], f"the database refused this batch ({type(exc).__name__})", batch, result
            ) from None
        result.batches += 1
        result.records += len(records)
        result.created.update(created)
        result.duplicates.update(duplicates)
        result.redacted.update(redacted)
        metrics.observe_retain(created.get("episode", 0), duplicates.get("episode", 0))
    for name in sorted(state.mental_models):
        mental_model_refresh(bank=bank, name=name)
    if result.created.get("episode_unextracted"):
        bank_background_queue(bank=bank)
        result.extraction_queued = True
    result.created.pop("episode_unextracted", None)
    return result


class _LineError(Exception):
    def __init__(self, line: int, reason: str, field: str | None = None):
        super().__init__(reason)
        self.line, self.reason, self.field = line, reason, field


def _span(batch: list[tuple[int, bytes]]) -> dict:
    return {"first_line": batch[0][0], "last_line": batch[-1][0]}


def _invalid(line: int, reason: str, batch, result: ImportResult, field: str | None = None) -> ImportLineInvalid:
    return ImportLineInvalid(
        f"line {line}: {reason}",
        extra={"line": line, "field": field, "reason": reason, "batch": _span(batch), "stored": result.as_dict()},
    )


def _batches(lines: Iterable[bytes], size: int, offset: int, result: ImportResult) -> Iterator[list]:
    batch: list[tuple[int, bytes]] = []
    for number, raw in enumerate(lines, start=offset + 1):
        result.lines += 1
        if len(raw) > MAX_LINE_BYTES:
            raise _invalid(number, f"line is longer than {MAX_LINE_BYTES} bytes", [(number, b"")], result)
        if not raw.strip():
            continue
        batch.append((number, raw))
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _parse(line, raw, format, now, state: _State, bank, apply_settings, result, batch) -> Record | None:
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _invalid(line, f"not valid JSON ({exc.__class__.__name__})", batch, result) from None
    try:
        if format == "jsonl":
            return Record(line, "episode", plain_to_record(data, now=now))
        if format == "mem0":
            return Record(line, "episode", mem0_to_record(data, now=now))
        kind = check_record(data)
    except RecordInvalid as exc:
        raise _invalid(line, exc.reason, batch, result, field=exc.field) from None
    if kind == "header":
        _read_header(line, data, state, bank, apply_settings, result, batch)
        return None
    return Record(line, kind, data)


def _read_header(line, header: dict, state: _State, bank: Bank, apply_settings: bool, result, batch) -> None:
    if header.get("format") != FORMAT or not isinstance(header.get("version"), int) or header["version"] > VERSION:
        raise _invalid(line, f"not a {FORMAT} export of version {VERSION} or older", batch, result, "format")
    embedding = header.get("embedding") or {}
    state.use_vectors = embedding.get("model") == _model_name() and embedding.get("dimensions") == 384
    if apply_settings and not state.header_seen and isinstance(header.get("bank"), dict):
        from banks.policy import validate_policy

        settings = header["bank"]
        bank.description = str(settings.get("description") or "")[:10000]
        bank.background = str(settings.get("background") or "")[:20000]
        try:
            bank.policy = validate_policy(settings.get("policy") or {})
        except Exception:
            raise _invalid(line, "the header's bank policy is not valid here", batch, result, "policy") from None
        bank.save(update_fields=["description", "background", "policy"])
        result.settings_applied = True
    state.header_seen = True


def _write(bank: Bank, records: list[Record], state: _State) -> tuple[Counter, Counter, Counter]:
    redacted = _defend(bank, records)
    by_type: dict[str, list[Record]] = {kind: [] for kind in RECORD_TYPES}
    for record in records:
        by_type[record.type].append(record)
    _embed_missing(by_type, state.use_vectors)
    created, duplicates = Counter(), Counter()
    context = writers.Context(bank=bank)
    for kind in RECORD_TYPES:
        if by_type[kind]:
            try:
                new, dup = writers.WRITERS[kind](context, by_type[kind])
            except writers.Unresolved as exc:
                raise _LineError(exc.line, exc.reason, exc.field) from None
            created.update(new)
            duplicates[kind] += dup
    state.mental_models.update(r.data["name"] for r in by_type["mental_model"])
    return created, +duplicates, redacted


def _defend(bank: Bank, records: list[Record]) -> Counter:
    policy = bank_policy(bank)
    total: Counter = Counter()
    if policy.defense_mode == "off":
        return total
    for record in records:
        counts: Counter = Counter()
        for name in TEXT_FIELDS.get(record.type, ()):
            if record.data.get(name) is not None:
                record.data[name] = scrub_value(record.data[name], counts, policy.defense_ip_addresses)
        if counts and policy.defense_mode == "block":
            metrics.observe_defense("blocked", counts)
            raise MemoryDefenseBlocked(extra={"kinds": sorted(counts), "line": record.line})
        total.update(counts)
    if total:
        metrics.observe_defense("redacted", total)
    return total


_EMBEDDED_TEXT = {
    "episode": "content",
    "fact": "statement",
    "belief": "statement",
    "play": "text",
    "mental_model": "question",
}


def _embed_missing(by_type: dict[str, list[Record]], use_vectors: bool) -> None:
    """Decode shipped vectors when they come from our model; embed everything else in one pass."""
    from portability.records import vector_decode

    todo: list[Record] = []
    for kind in _EMBEDDED_TEXT:
        for record in by_type[kind]:
            shipped = record.data.get("embedding")
            if use_vectors and isinstance(shipped, str):
                try:
                    record.data["embedding"] = vector_decode(shipped, 384)
                except RecordInvalid as exc:
                    raise _LineError(record.line, exc.reason, "embedding") from None
            else:
                record.data["embedding"] = None
                todo.append(record)
    if todo:
        vectors = embed_texts([r.data[_EMBEDDED_TEXT[r.type]] for r in todo])
        for record, vector in zip(todo, vectors, strict=True):
            record.data["embedding"] = vector


__all__ = ["ImportResult", "MentalModel", "bank_import"]
