"""One writer per record type: resolve natural keys, insert what is new, count the rest.

Each writer gets the batch's records of its type (already checked, defended and
embedded) and returns ``(created counts, duplicates)``. A reference that does not
resolve in the bank raises ``Unresolved`` with the record's line.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from dataclasses import dataclass

from django.utils import timezone

from banks.models import Bank
from beliefs.defense.apply import metadata_text
from beliefs.defense.injection import injection_assessment
from beliefs.models import Belief, BeliefVersion, Episode, Evidence, Fact, MentalModel, Play, Provenance, RetainBatch
from beliefs.services.forget.tombstones import erased_subjects
from beliefs.services.indexing import episodes_index
from memoryhub.tokens import count_tokens
from portability.records import FACT_KEY_FIELDS, Record, RecordInvalid, parse_time
from portability.refs import payload_episode_refs, payload_from_refs
from reviews.models import ReviewItem

_CHOICES = {
    "provenance": set(Provenance.values),
    "stance": set(Evidence.Stance.values),
    "status": set(Belief.Status.values),
    "cause": set(BeliefVersion.Cause.values),
    "kind": set(ReviewItem.Kind.values),
}


class Unresolved(Exception):
    def __init__(self, line: int, reason: str, field: str | None = None):
        super().__init__(reason)
        self.line, self.reason, self.field = line, reason, field


@dataclass
class Context:
    bank: Bank

    def episode_ids(self, refs: set[str]) -> dict[str, int]:
        if not refs:
            return {}
        return dict(Episode.objects.filter(bank=self.bank, dedupe_key__in=refs).values_list("dedupe_key", "id"))

    def belief_ids(self, keys: set[str]) -> dict[str, int]:
        if not keys:
            return {}
        return dict(Belief.objects.filter(bank=self.bank, key__in=keys).values_list("key", "id"))

    def fact_ids(self, episode_ids: set[int]) -> dict[tuple, int]:
        rows = Fact.objects.filter(bank=self.bank, episode_id__in=episode_ids).values_list(
            "id", "episode_id", "subject_key", "predicate", "object_key", "negated"
        )
        return {tuple(row[1:]): row[0] for row in rows}


def _choice(record: Record, name: str, default: str | None = None) -> str:
    value = record.data.get(name, default)
    if value not in _CHOICES[name]:
        raise Unresolved(record.line, f"{record.type}.{name} {str(value)[:40]!r} is not one of the known values", name)
    return value


def _need(mapping: dict, key, record: Record, what: str, field: str):
    if key not in mapping:
        raise Unresolved(record.line, f"{what} {str(key)[:80]!r} is not in this bank (nor earlier in the file)", field)
    return mapping[key]


def write_episodes(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    refs = {r.data["ref"] for r in records}
    known = ctx.episode_ids(refs)
    erased = erased_subjects(bank=bank, subjects={r.data.get("subject") or "" for r in records} - {""})
    rows, seen, created = [], set(known), Counter()
    for record in records:
        d = record.data
        if d["ref"] in seen or (d.get("subject") or "") in erased:
            created["episode_suppressed"] += (d.get("subject") or "") in erased and d["ref"] not in seen
            continue
        seen.add(d["ref"])
        content, metadata = d["content"], d.get("metadata") or {}
        flags = d.get("injection_flags")
        found_flags, spans = injection_assessment(content, metadata_text(metadata))
        rows.append(
            Episode(
                tenant_id=bank.tenant_id,
                bank=bank,
                content=content,
                occurred_at=d["occurred_at"],
                recorded_at=d["recorded_at"],
                source=(d.get("source") or "import")[:64],
                subject=(d.get("subject") or "")[:255],
                thread=(d.get("thread") or "")[:128],
                provenance=_choice(record, "provenance", Provenance.IMPORTED),
                metadata=metadata,
                content_hash=hashlib.sha256(content.encode()).hexdigest(),
                dedupe_key=d["ref"][:160],
                token_count=count_tokens(content),
                embedding=d["embedding"],
                extracted_at=d.get("extracted_at"),
                injection_flags=flags if isinstance(flags, list) else found_flags,
                injection_spans=spans,
                quarantine_released_at=d.get("quarantine_released_at"),
            )
        )
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
    episodes_index(bank=bank, episode_ids=sorted(ids.values()))
    echoes = {r.data["ref"]: r.data["echo_of"] for r in records if r.data.get("echo_of") and r.data["ref"] in ids}
    if echoes:
        targets = ctx.episode_ids(set(echoes.values()))
        for ref, target in echoes.items():
            if target in targets:
                Episode.objects.filter(bank=bank, pk=ids[ref]).update(echo_of_id=targets[target])
    created["episode"] += len(ids)
    created["episode_unextracted"] += sum(1 for row in rows if row.extracted_at is None)
    return +created, len(records) - len(ids) - created["episode_suppressed"]


def _fact_key(ctx_ids: dict[str, int], key: dict, record: Record, field: str) -> tuple:
    if not isinstance(key, dict) or set(FACT_KEY_FIELDS) - set(key):
        raise Unresolved(record.line, f"{field} must name {', '.join(FACT_KEY_FIELDS)}", field)
    episode_id = _need(ctx_ids, key["episode"], record, "episode", field)
    return (episode_id, key["subject_key"], key["predicate"], key["object_key"], bool(key["negated"]))


def write_facts(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    episodes = ctx.episode_ids({r.data["episode"] for r in records})
    rows = []
    for record in records:
        d = record.data
        episode_id = _need(episodes, d["episode"], record, "episode", "episode")
        rows.append(
            Fact(
                tenant_id=bank.tenant_id,
                bank=bank,
                episode_id=episode_id,
                provenance=_choice(record, "provenance", Provenance.USER),
                negated=bool(d.get("negated")),
                embedding=d["embedding"],
                **{
                    name: d.get(name)
                    for name in (
                        "subject",
                        "subject_key",
                        "predicate",
                        "object",
                        "object_key",
                        "statement",
                        "quote",
                        "quote_start",
                        "quote_end",
                        "extractor",
                        "valid_at",
                        "invalid_at",
                        "created_at",
                        "expired_at",
                        "consolidated_at",
                    )
                },  # fmt: skip
                hedged=bool(d.get("hedged")),
                functional=bool(d.get("functional")),
                quarantined=bool(d.get("quarantined")),
            )
        )
    before = Fact.objects.filter(bank=bank).count()
    Fact.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
    new = Fact.objects.filter(bank=bank).count() - before
    return Counter(fact=new), len(records) - new


def write_fact_invalidations(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    episodes = ctx.episode_ids({r.data[f]["episode"] for r in records for f in ("fact", "invalidated_by")
                               if isinstance(r.data[f], dict) and "episode" in r.data[f]})  # fmt: skip
    facts = ctx.fact_ids(set(episodes.values()))
    changed = 0
    for record in records:
        fact = _need(facts, _fact_key(episodes, record.data["fact"], record, "fact"), record, "fact", "fact")
        by = _need(
            facts,
            _fact_key(episodes, record.data["invalidated_by"], record, "invalidated_by"),
            record,
            "fact",
            "invalidated_by",
        )
        changed += (
            Fact.objects.filter(bank=ctx.bank, pk=fact).exclude(invalidated_by_id=by).update(invalidated_by_id=by)
        )
    return Counter(fact_invalidation=changed), len(records) - changed


def write_beliefs(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    rows = []
    for record in records:
        d = record.data
        rows.append(
            Belief(
                tenant_id=bank.tenant_id,
                bank=bank,
                status=_choice(record, "status"),
                embedding=d["embedding"],
                **{
                    name: d[name]
                    for name in (
                        "key",
                        "subject",
                        "subject_key",
                        "predicate",
                        "object",
                        "object_key",
                        "statement",
                        "confidence",
                        "proof_count",
                        "first_seen_at",
                        "last_confirmed_at",
                        "valid_from",
                        "formed_at",
                    )
                },  # fmt: skip
                **{
                    name: d.get(name, default)
                    for name, default in (
                        ("base_confidence", 0.0),
                        ("contradiction_count", 0),
                        ("support_weight", 0.0),
                        ("contradiction_weight", 0.0),
                        ("valid_to", None),
                        ("version", 1),
                    )
                },  # fmt: skip
            )
        )
    before = Belief.objects.filter(bank=bank).count()
    Belief.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
    new = Belief.objects.filter(bank=bank).count() - before
    return Counter(belief=new), len(records) - new


def write_evidence(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    beliefs = ctx.belief_ids({r.data["belief"] for r in records})
    refs = {r.data["episode"] for r in records} | {
        r.data["fact"]["episode"]
        for r in records
        if isinstance(r.data.get("fact"), dict) and "episode" in r.data["fact"]
    }
    episodes = ctx.episode_ids(refs)
    facts = ctx.fact_ids(set(episodes.values()))
    rows = []
    for record in records:
        d = record.data
        fact_id = None
        if d.get("fact"):
            fact_id = _need(facts, _fact_key(episodes, d["fact"], record, "fact"), record, "fact", "fact")
        rows.append(
            Evidence(
                tenant_id=bank.tenant_id,
                bank=bank,
                belief_id=_need(beliefs, d["belief"], record, "belief", "belief"),
                episode_id=_need(episodes, d["episode"], record, "episode", "episode"),
                fact_id=fact_id,
                stance=_choice(record, "stance"),
                **{n: d[n] for n in ("quote", "quote_start", "quote_end", "weight", "observed_at", "recorded_at")},
            )
        )
    before = Evidence.objects.filter(bank=bank).count()
    Evidence.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
    new = Evidence.objects.filter(bank=bank).count() - before
    return Counter(evidence=new), len(records) - new


def write_versions(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    beliefs = ctx.belief_ids({r.data["belief"] for r in records})
    refs = {e.get("episode") for r in records for e in r.data.get("evidence") or [] if isinstance(e, dict)}
    episodes = ctx.episode_ids(refs - {None})
    evidence = {
        (belief_id, episode_id, stance): pk
        for pk, belief_id, episode_id, stance in Evidence.objects.filter(
            bank=bank, belief_id__in=set(beliefs.values())
        ).values_list("id", "belief_id", "episode_id", "stance")
    }
    rows = []
    for record in records:
        d = record.data
        belief_id = _need(beliefs, d["belief"], record, "belief", "belief")
        evidence_ids = []
        for ref in d.get("evidence") or []:
            episode_id = _need(
                episodes, ref.get("episode") if isinstance(ref, dict) else None, record, "episode", "evidence"
            )
            evidence_ids.append(
                _need(evidence, (belief_id, episode_id, ref.get("stance")), record, "evidence", "evidence")
            )
        rows.append(
            BeliefVersion(
                tenant_id=bank.tenant_id,
                bank=bank,
                belief_id=belief_id,
                cause=_choice(record, "cause"),
                evidence_ids=evidence_ids,
                old_statement=d.get("old_statement") or "",
                old_status=d.get("old_status") or "",
                **{
                    n: d.get(n)
                    for n in (
                        "version",
                        "new_statement",
                        "old_confidence",
                        "new_confidence",
                        "old_proof_count",
                        "new_proof_count",
                        "new_status",
                        "effective_at",
                    )
                },
            )  # fmt: skip
        )
    before = BeliefVersion.objects.filter(bank=bank).count()
    BeliefVersion.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
    new = BeliefVersion.objects.filter(bank=bank).count() - before
    return Counter(belief_version=new), len(records) - new


def _review_lookup(bank: Bank, keys: set[tuple]) -> dict[tuple, int]:
    titles = {key[1] for key in keys}
    rows = ReviewItem.objects.filter(bank=bank, title__in=titles).values_list("id", "kind", "title", "created_at")
    return {(kind, title, created): pk for pk, kind, title, created in rows}


def write_review_items(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    beliefs = ctx.belief_ids({r.data["belief"] for r in records if r.data.get("belief")})
    refs = set().union(*(payload_episode_refs(r.data.get("payload")) for r in records))
    episodes = ctx.episode_ids(refs)
    existing = _review_lookup(bank, {(r.data["kind"], r.data["title"], r.data["created_at"]) for r in records})
    new = 0
    for record in records:
        d = record.data
        if (d["kind"], d["title"], d["created_at"]) in existing:
            continue
        item = ReviewItem.objects.create(
            tenant_id=bank.tenant_id,
            bank=bank,
            kind=_choice(record, "kind"),
            status=d.get("status") or ReviewItem.Status.PENDING,
            title=d["title"][:300],
            body=d.get("body") or "",
            belief_id=beliefs.get(d.get("belief")),
            payload=payload_from_refs(d.get("payload") or {}, episodes=episodes, beliefs=beliefs),
            comment=d.get("comment") or "",
            decided_by=d.get("decided_by") or "",
            decided_at=d.get("decided_at"),
        )
        ReviewItem.objects.filter(pk=item.pk).update(created_at=d["created_at"])  # auto_now_add on create
        new += 1
    return Counter(review_item=new), len(records) - new


def write_plays(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    refs: dict[int, tuple] = {}
    for record in records:
        ref = record.data.get("review_item")
        if isinstance(ref, dict) and {"kind", "title", "created_at"} <= set(ref):
            try:
                refs[record.line] = (ref["kind"], ref["title"], parse_time(ref["created_at"], "review_item.created_at"))
            except RecordInvalid as exc:
                raise Unresolved(record.line, exc.reason, "review_item") from None
    reviews = _review_lookup(bank, set(refs.values())) if refs else {}
    existing = set(Play.objects.filter(bank=bank).values_list("text", "play", "segment", "signature"))
    new = 0
    for record in records:
        d = record.data
        identity = (d["text"], d.get("play") or "", d.get("segment") or "", d.get("signature") or "")
        if identity in existing:
            continue
        existing.add(identity)
        review_id = reviews.get(refs.get(record.line))
        play = Play.objects.create(
            tenant_id=bank.tenant_id,
            bank=bank,
            text=identity[0],
            play=identity[1],
            segment=identity[2],
            signature=identity[3],
            review_item_id=review_id,
            embedding=d["embedding"],
        )
        if d.get("created_at"):
            Play.objects.filter(pk=play.pk).update(created_at=d["created_at"])  # auto_now_add on create
        new += 1
    return Counter(play=new), len(records) - new


def write_mental_models(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    existing = set(MentalModel.objects.filter(bank=bank).values_list("name", flat=True))
    new = 0
    for record in records:
        d = record.data
        if d["name"] in existing:
            continue
        existing.add(d["name"])
        MentalModel.objects.create(
            tenant_id=bank.tenant_id,
            bank=bank,
            name=d["name"][:63],
            question=d["question"],
            belief_filter=d.get("belief_filter") or {},
            max_beliefs=int(d.get("max_beliefs") or 10),
            question_embedding=d["embedding"],
        )
        new += 1
    return Counter(mental_model=new), len(records) - new


WRITERS = {
    "episode": write_episodes,
    "fact": write_facts,
    "fact_invalidation": write_fact_invalidations,
    "belief": write_beliefs,
    "evidence": write_evidence,
    "belief_version": write_versions,
    "review_item": write_review_items,
    "play": write_plays,
    "mental_model": write_mental_models,
}
