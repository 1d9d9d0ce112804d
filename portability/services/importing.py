"""Import: JSON lines into a bank, batch by batch, each batch all or nothing.

Lines are read as a stream and handled ``batch_size`` at a time (fewer when the batch
reaches ``MAX_BATCH_BYTES``). Every line of a batch is parsed and checked first; then the
batch is written in one transaction (a savepoint inside a request). A bad line raises
``ImportLineInvalid`` with its line number and the counts stored by earlier batches;
nothing of its own batch is stored. Records are matched by natural keys
(``portability.records``), so importing the same file twice, or resuming after a fix,
stores nothing twice.

A file is untrusted input. Its episodes are checked and stored as retain stores them
(limits, Memory Defense, injection flags, quarantine, echoes, tombstones), and derived
records and review decisions are held back for the workers and for people to redo
(``portability.services.writers``). Only an admin who passes ``trust_file`` has them
taken as they are, and that is audited with the number of records trusted.

Memory stays bounded whatever the body holds: a line is read with a bounded
``readline`` and refused past ``MAX_LINE_BYTES``, a batch holds at most
``MAX_BATCH_BYTES`` of lines, and a caller without the admin scope may send at most
``MAX_BODY_BYTES`` in one request.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.db import DatabaseError, transaction
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from banks.policy import bank_policy
from beliefs.defense.apply import scrub_value
from beliefs.services.extract import bank_background_queue
from beliefs.services.mental_models import mental_model_refresh
from memoryhub import metrics
from memoryhub.embeddings import embed_texts
from memoryhub.exceptions import ImportLineInvalid, ImportTooLarge, MemoryDefenseBlocked
from portability.formats import episode_record, mem0_to_record, plain_to_record, retain_item
from portability.records import (
    FACT_KEY_TEXT,
    FORMAT,
    RECORD_TYPES,
    TEXT_FIELDS,
    VERSION,
    NotJSONNumber,
    Record,
    RecordInvalid,
    check_record,
    loads,
)
from portability.services import writers
from portability.services.exporting import _model_name

#: The longest line read (a MemoryHub export's longest record is an episode at retain's limits, about 100 KB).
MAX_LINE_BYTES = 4 * 1024 * 1024
#: A batch holds at most this many bytes of lines, however many lines ``batch_size`` allows.
MAX_BATCH_BYTES = 16 * 1024 * 1024
#: The most one request may send without the admin scope (the client sends files in smaller chunks).
MAX_BODY_BYTES = 64 * 1024 * 1024


@dataclass
class ImportResult:
    format: str
    trusted: bool = False
    lines: int = 0
    records: int = 0
    batches: int = 0
    bytes: int = 0
    created: Counter = field(default_factory=Counter)
    duplicates: Counter = field(default_factory=Counter)
    redacted: Counter = field(default_factory=Counter)
    held_back: Counter = field(default_factory=Counter)
    trusted_records: Counter = field(default_factory=Counter)
    settings_applied: bool = False
    extraction_queued: bool = False

    def as_dict(self) -> dict:
        return {
            "format": self.format,
            "trusted": self.trusted,
            "lines": self.lines,
            "records": self.records,
            "batches": self.batches,
            "created": dict(sorted((+self.created).items())),
            "duplicates": dict(sorted((+self.duplicates).items())),
            "redacted": dict(sorted((+self.redacted).items())),
            "held_back": dict(sorted((+self.held_back).items())),
            "settings_applied": self.settings_applied,
            "extraction_queued": self.extraction_queued,
        }


@dataclass
class _State:
    use_vectors: bool = False
    header_seen: bool = False
    mental_models: set = field(default_factory=set)


def request_lines(stream, *, content_length: int, max_body_bytes: int | None) -> Iterator[bytes]:
    """The lines of a request body, read ``MAX_LINE_BYTES + 1`` bytes at most at a time.

    A declared body over ``max_body_bytes`` is refused before anything is read.
    """
    if max_body_bytes is not None and content_length > max_body_bytes:
        raise _too_large("body", max_body_bytes, ImportResult(format=""))
    return iter(lambda: stream.readline(MAX_LINE_BYTES + 1), b"")


def bank_import(
    *,
    bank: Bank,
    lines: Iterable[bytes],
    format: str = FORMAT,
    line_offset: int = 0,
    batch_size: int = 500,
    apply_settings: bool = False,
    trust_file: bool = False,
    max_body_bytes: int | None = None,
    actor: str = "system",
) -> ImportResult:
    """Import ``lines`` into ``bank``; earlier batches stay stored when a later line is bad.

    ``trust_file`` (the caller has checked the admin scope) takes derived records and review
    decisions from the file; the import is audited for ``actor`` either way, inside this call.
    """
    result = ImportResult(format=format, trusted=trust_file)
    state = _State()
    now = timezone.now()
    unextracted, completed = 0, False
    try:
        for batch in _batches(lines, batch_size, line_offset, result, max_body_bytes):
            records = [
                r
                for r in (
                    _parse(line, raw, format, now, state, bank, apply_settings, result, batch) for line, raw in batch
                )
                if r
            ]
            if not records:
                continue
            context = writers.Context(bank=bank, now=now, trusted=trust_file)
            try:
                with transaction.atomic():
                    created, duplicates, redacted = _write(context, records, state)
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
            unextracted += created.pop("episode_unextracted", 0)
            result.created.update(created)
            result.duplicates.update(duplicates)
            result.redacted.update(redacted)
            result.held_back.update(context.held_back)
            result.trusted_records.update(context.trusted_records)
            metrics.observe_retain(created.get("episode", 0), duplicates.get("episode", 0))
        completed = True
    finally:
        # Also when a later line stops the import: what earlier batches stored is audited and extracted
        # (a request refused before anything was stored leaves no row behind, not even an audit event).
        if unextracted:
            bank_background_queue(bank=bank)  # extract → consolidate → refresh: beliefs come from the episodes
            result.extraction_queued = True
        if completed or result.batches:
            _audit(actor, bank, result)
    for name in sorted(state.mental_models):
        mental_model_refresh(bank=bank, name=name)
    return result


def _audit(actor: str, bank: Bank, result: ImportResult) -> None:
    target = f"bank:{bank.slug}"
    counts = result.as_dict()
    details = {"created": counts["created"], "held_back": counts["held_back"], "trusted": result.trusted}
    audit_record(actor=actor, tenant=bank.tenant_id, bank=bank, action="bank.imported", target=target,
                 details=details)  # fmt: skip
    if result.trusted:
        trusted = dict(sorted((+result.trusted_records).items()))
        audit_record(actor=actor, tenant=bank.tenant_id, bank=bank, action="bank.import_trusted", target=target,
                     details={"records": sum(trusted.values()), "by_type": trusted})  # fmt: skip


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


def _too_large(limit: str, max_bytes: int, result: ImportResult, line: int | None = None) -> ImportTooLarge:
    where = f"line {line} is" if limit == "line" else "the request body is"
    return ImportTooLarge(
        f"{where} longer than {max_bytes} bytes",
        extra={"limit": limit, "max_bytes": max_bytes, "line": line, "stored": result.as_dict()},
    )


def _batches(
    lines: Iterable[bytes], size: int, offset: int, result: ImportResult, max_body_bytes: int | None
) -> Iterator[list]:
    batch: list[tuple[int, bytes]] = []
    held = 0
    for number, raw in enumerate(lines, start=offset + 1):
        result.lines += 1
        result.bytes += len(raw)
        if max_body_bytes is not None and result.bytes > max_body_bytes:
            raise _too_large("body", max_body_bytes, result)
        if len(raw.rstrip(b"\r\n")) > MAX_LINE_BYTES:
            raise _too_large("line", MAX_LINE_BYTES, result, line=number)
        if not raw.strip():
            continue
        if batch and held + len(raw) > MAX_BATCH_BYTES:
            yield batch
            batch, held = [], 0
        batch.append((number, raw))
        held += len(raw)
        if len(batch) >= size:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def _parse(line, raw, format, now, state: _State, bank, apply_settings, result, batch) -> Record | None:
    try:
        data = loads(raw)
    except NotJSONNumber as exc:
        raise _invalid(line, f"not valid JSON: {exc}", batch, result) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise _invalid(line, f"not valid JSON ({exc.__class__.__name__})", batch, result) from None
    try:
        if format == "jsonl":
            return Record(line, "episode", plain_to_record(data, now=now))
        if format == "mem0":
            return Record(line, "episode", mem0_to_record(data, now=now))
        kind = check_record(data)
        if kind == "episode":
            return Record(line, kind, _export_episode(data, now))
    except RecordInvalid as exc:
        raise _invalid(line, exc.reason, batch, result, field=exc.field) from None
    if kind == "header":
        _read_header(line, data, state, bank, apply_settings, result, batch)
        return None
    return Record(line, kind, data)


def _export_episode(data: dict, now: datetime) -> dict:
    """An exported episode, checked as a retain item. Its security state (flags, spans, echo, release) is not read."""
    if len(data["ref"]) > 160 or not data["ref"]:
        raise RecordInvalid("episode.ref must be 1 to 160 characters", "ref")
    item = retain_item(
        {
            "content": data["content"],
            "occurred_at": data["occurred_at"].isoformat(),
            "source": data.get("source") or "import",
            "subject": data.get("subject") or "",
            "thread": data.get("thread") or "",
            "provenance": data.get("provenance") or "imported",
            "metadata": data.get("metadata") or {},
        }
    )
    record = episode_record(item, now=now, ref=data["ref"])
    record["recorded_at"] = data["recorded_at"]  # kept only when the file is trusted
    record["extracted_at"] = data.get("extracted_at")
    record["embedding"] = data.get("embedding")
    return record


def _read_header(line, header: dict, state: _State, bank: Bank, apply_settings: bool, result, batch) -> None:
    if header.get("format") != FORMAT or not isinstance(header.get("version"), int) or header["version"] > VERSION:
        raise _invalid(line, f"not a {FORMAT} export of version {VERSION} or older", batch, result, "format")
    embedding = header.get("embedding") or {}
    embedding = embedding if isinstance(embedding, dict) else {}
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


def _write(context: writers.Context, records: list[Record], state: _State) -> tuple[Counter, Counter, Counter]:
    redacted = _defend(context.bank, records)
    by_type: dict[str, list[Record]] = {kind: [] for kind in RECORD_TYPES}
    for record in records:
        by_type[record.type].append(record)
    if not context.trusted:
        for kind in writers.DERIVED:
            context.held_back[kind] += len(by_type[kind])
            by_type[kind] = []  # the workers derive these from the episodes
    _embed_missing(by_type, state.use_vectors, context.trusted)
    created, duplicates = Counter(), Counter()
    for kind in RECORD_TYPES:
        if by_type[kind]:
            try:
                new, dup = writers.WRITERS[kind](context, by_type[kind])
            except writers.Unresolved as exc:
                raise _LineError(exc.line, exc.reason, exc.field) from None
            created.update(new)
            duplicates[kind] += dup
            if kind in writers.DERIVED:
                context.trusted_records[kind] += new.get(kind, 0)
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
            value = record.data.get(name)
            if value is not None:
                record.data[name] = _scrub_field(name, value, counts, policy.defense_ip_addresses)
        if counts and policy.defense_mode == "block":
            metrics.observe_defense("blocked", counts)
            raise MemoryDefenseBlocked(extra={"kinds": sorted(counts), "line": record.line})
        total.update(counts)
    if total:
        metrics.observe_defense("redacted", total)
    return total


def _scrub_field(name: str, value, counts: Counter, ip_addresses):
    if name in ("fact", "invalidated_by") and isinstance(value, dict):
        # A fact reference: its keys are scanned like the fact's own keys; the episode reference is not text.
        return {k: scrub_value(v, counts, ip_addresses) if k in FACT_KEY_TEXT else v for k, v in value.items()}
    if name == "payload":
        return _scrub_payload(value, counts, ip_addresses)
    return scrub_value(value, counts, ip_addresses)


def _scrub_payload(node, counts: Counter, ip_addresses):
    if isinstance(node, dict):
        if set(node) == {"episode"} and isinstance(node["episode"], str):
            return node  # an episode reference (a dedupe key), not text
        return {key: _scrub_payload(value, counts, ip_addresses) for key, value in node.items()}
    if isinstance(node, list):
        return [_scrub_payload(value, counts, ip_addresses) for value in node]
    return scrub_value(node, counts, ip_addresses)


_EMBEDDED_TEXT = {
    "episode": "content",
    "fact": "statement",
    "belief": "statement",
    "play": "text",
    "mental_model": "question",
}


def _embed_missing(by_type: dict[str, list[Record]], use_vectors: bool, trusted: bool) -> None:
    """Decode shipped vectors when they come from our model and the file is trusted; embed the rest in one pass.

    A vector is derived from its text: an untrusted file could ship one that does not match the text
    (so an episode would surface for queries it has nothing to do with), so its vectors are recomputed.
    """
    from portability.records import vector_decode

    todo: list[Record] = []
    for kind in _EMBEDDED_TEXT:
        for record in by_type[kind]:
            shipped = record.data.get("embedding")
            if kind == "play" and not trusted:
                record.data["embedding"] = None  # an untrusted play becomes a lesson; acceptance embeds it
            elif use_vectors and trusted and isinstance(shipped, str):
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


__all__ = ["MAX_BATCH_BYTES", "MAX_BODY_BYTES", "MAX_LINE_BYTES", "ImportResult", "bank_import", "request_lines"]
