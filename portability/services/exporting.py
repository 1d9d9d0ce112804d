"""Export: a bank's whole memory as a stream of JSON lines (see ``portability.records``).

Rows are read with server-side cursors in chunks, so memory stays flat however large the
bank is; outside an enclosing transaction the export runs in one REPEATABLE READ
transaction, so it is a consistent snapshot even while agents keep writing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime

from django.db import connection, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from audit.services import audit_record
from banks.models import Bank
from beliefs.models import Belief, BeliefVersion, Episode, EpisodeExtraction, Evidence, Fact, MentalModel, Play
from memoryhub.embeddings import model_path
from memoryhub.tenancy import tenant_scope
from portability.records import FORMAT, VERSION, vector_encode
from portability.refs import payload_to_refs
from reviews.models import ReviewItem

_CHUNK = 500


def _json_default(value):
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _line(record: dict) -> bytes:
    return (json.dumps(record, ensure_ascii=False, default=_json_default, separators=(",", ":")) + "\n").encode()


def bank_export(*, bank: Bank, include_embeddings: bool = True, actor: str) -> Iterator[bytes]:
    """Audit an export of ``bank`` by ``actor`` (``bank.exported``) and return its lines to stream."""
    audit_record(actor=actor, tenant=bank.tenant_id, bank=bank, action="bank.exported", target=f"bank:{bank.slug}")
    return bank_export_lines(bank=bank, include_embeddings=include_embeddings)


def bank_export_lines(*, bank: Bank, include_embeddings: bool = True) -> Iterator[bytes]:
    """The bank as JSON lines, header first. Runs in its own tenant-scoped transaction."""
    with tenant_scope(bank.tenant_id), transaction.atomic():
        if len(connection.atomic_blocks) == 1:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        for record in bank_export_records(bank=bank, include_embeddings=include_embeddings):
            yield _line(record)


def bank_export_records(*, bank: Bank, include_embeddings: bool = True) -> Iterator[dict]:
    """Every record of ``bank`` in dependency order (the caller provides the transaction and scope)."""
    refs = dict(Episode.objects.filter(bank=bank).values_list("id", "dedupe_key"))
    belief_keys = dict(Belief.objects.filter(bank=bank).values_list("id", "key"))
    yield {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now(),
        "bank": {
            "slug": bank.slug,
            "name": bank.name,
            "description": bank.description,
            "background": bank.background,
            "policy": bank.policy,
        },
        "embedding": {"model": _model_name(), "dimensions": 384} if include_embeddings else None,
        "counts": {"episodes": len(refs), "beliefs": len(belief_keys)},
    }
    vec = vector_encode if include_embeddings else None

    extracted = EpisodeExtraction.objects.filter(bank=bank, episode_id=OuterRef("pk")).values("extracted_at")
    episodes = Episode.objects.filter(bank=bank).annotate(extracted=Subquery(extracted)).order_by("id")
    for e in episodes.iterator(chunk_size=_CHUNK):
        record = {
            "type": "episode",
            "ref": e.dedupe_key,
            "content": e.content,
            "occurred_at": e.occurred_at,
            "recorded_at": e.recorded_at,
            "source": e.source,
            "subject": e.subject,
            "thread": e.thread,
            "provenance": e.provenance,
            "metadata": e.metadata,
            "extracted_at": e.extracted,
            "injection_flags": e.injection_flags,
            "echo_of": refs.get(e.echo_of_id),
            "quarantine_released_at": e.quarantine_released_at,
        }
        yield _with_vector(record, e.embedding, vec)

    fact_keys: dict[int, dict] = {}
    invalidations: list[tuple[int, int]] = []
    for f in Fact.objects.filter(bank=bank).order_by("id").iterator(chunk_size=_CHUNK):
        key = {
            "episode": refs[f.episode_id],
            "subject_key": f.subject_key,
            "predicate": f.predicate,
            "object_key": f.object_key,
            "negated": f.negated,
        }
        fact_keys[f.pk] = key
        if f.invalidated_by_id:
            invalidations.append((f.pk, f.invalidated_by_id))
        record = {"type": "fact", **key}
        record.update(
            {
                name: getattr(f, name)
                for name in (
                    "subject", "object", "hedged", "functional", "statement", "quote", "quote_start", "quote_end",
                    "extractor", "provenance", "valid_at", "invalid_at", "created_at", "expired_at",
                    "consolidated_at", "quarantined",
                )
            }
        )  # fmt: skip
        yield _with_vector(record, f.embedding, vec)
    for fact_id, by_id in invalidations:
        if by_id in fact_keys:
            yield {"type": "fact_invalidation", "fact": fact_keys[fact_id], "invalidated_by": fact_keys[by_id]}

    for b in Belief.objects.filter(bank=bank).order_by("id").iterator(chunk_size=_CHUNK):
        record = {"type": "belief"}
        record.update(
            {
                name: getattr(b, name)
                for name in (
                    "key", "subject", "subject_key", "predicate", "object", "object_key", "statement", "status",
                    "confidence", "base_confidence", "proof_count", "contradiction_count", "support_weight",
                    "contradiction_weight", "first_seen_at", "last_confirmed_at", "valid_from", "valid_to",
                    "formed_at", "version",
                )
            }
        )  # fmt: skip
        yield _with_vector(record, b.embedding, vec)

    evidence_refs: dict[int, dict] = {}
    for ev in Evidence.objects.filter(bank=bank).order_by("id").iterator(chunk_size=_CHUNK):
        evidence_refs[ev.pk] = {"episode": refs[ev.episode_id], "stance": ev.stance}
        yield {
            "type": "evidence",
            "belief": belief_keys[ev.belief_id],
            "episode": refs[ev.episode_id],
            "fact": fact_keys.get(ev.fact_id),
            "stance": ev.stance,
            "quote": ev.quote,
            "quote_start": ev.quote_start,
            "quote_end": ev.quote_end,
            "weight": ev.weight,
            "observed_at": ev.observed_at,
            "recorded_at": ev.recorded_at,
            "created_at": ev.created_at,
        }

    for v in BeliefVersion.objects.filter(bank=bank).order_by("belief_id", "version").iterator(chunk_size=_CHUNK):
        record = {"type": "belief_version", "belief": belief_keys[v.belief_id]}
        record.update(
            {
                name: getattr(v, name)
                for name in (
                    "version", "cause", "old_statement", "new_statement", "old_confidence", "new_confidence",
                    "old_proof_count", "new_proof_count", "old_status", "new_status", "effective_at", "created_at",
                )
            }
        )  # fmt: skip
        record["evidence"] = [evidence_refs[i] for i in v.evidence_ids or [] if i in evidence_refs]
        yield record

    review_refs: dict[int, dict] = {}
    for item in ReviewItem.objects.filter(bank=bank).order_by("id").iterator(chunk_size=_CHUNK):
        review_refs[item.pk] = {"kind": item.kind, "title": item.title, "created_at": item.created_at}
        yield {
            "type": "review_item",
            "kind": item.kind,
            "status": item.status,
            "title": item.title,
            "body": item.body,
            "belief": belief_keys.get(item.belief_id),
            "payload": payload_to_refs(item.payload, episodes=refs, beliefs=belief_keys),
            "comment": item.comment,
            "decided_by": item.decided_by,
            "decided_at": item.decided_at,
            "created_at": item.created_at,
        }

    for play in Play.objects.filter(bank=bank).order_by("id").iterator(chunk_size=_CHUNK):
        record = {
            "type": "play",
            "text": play.text,
            "play": play.play,
            "segment": play.segment,
            "signature": play.signature,
            "review_item": review_refs.get(play.review_item_id),
            "created_at": play.created_at,
        }
        yield _with_vector(record, play.embedding, vec)

    for model in MentalModel.objects.filter(bank=bank).order_by("name"):
        record = {
            "type": "mental_model",
            "name": model.name,
            "question": model.question,
            "belief_filter": model.belief_filter,
            "max_beliefs": model.max_beliefs,
        }
        yield _with_vector(record, model.question_embedding, vec)


def _with_vector(record: dict, vector, encode) -> dict:
    if encode is not None and vector is not None:
        record["embedding"] = encode(vector)
    return record


def _model_name() -> str:
    """The embedding model's identity: its directory name (the same bundled model gives the same name)."""
    return model_path().rstrip("/").rsplit("/", 1)[-1]
