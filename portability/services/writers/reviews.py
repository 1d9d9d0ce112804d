"""Review items, plays and mental models from a file: human gates stay human.

A decision in a review item (its status, who decided, when, the comment) and a play
(procedural memory that otherwise exists only after a person accepts a lesson) are taken
from a file only when an admin trusts it (``trust_file``). Otherwise every review item
arrives pending with no decision, and a play arrives as a pending lesson (a distillation
review item) that becomes a play when someone accepts it. Payloads and mental-model names
are checked so that no imported record can break the pages that show it.
"""

from __future__ import annotations

from collections import Counter

from beliefs.api.belief_serializers import MentalModelInputSerializer
from beliefs.models import MentalModel, Play
from portability.formats import first_error
from portability.records import Record, RecordInvalid, parse_time
from portability.refs import payload_episode_refs, payload_from_refs
from portability.services.writers.common import Context, Unresolved, choice, not_after, text
from reviews.models import ReviewItem

_PAYLOAD_TEXT = {"session": 200, "play": 100, "segment": 100, "signature": 200, "text": 20000, "submitted_by": 200}


def _review_lookup(bank, keys: set[tuple]) -> dict[tuple, int]:
    titles = {key[1] for key in keys}
    rows = ReviewItem.objects.filter(bank=bank, title__in=titles).values_list("id", "kind", "title", "created_at")
    return {(kind, title, created): pk for pk, kind, title, created in rows}


def review_payload(record: Record, episodes: dict[str, int], beliefs: dict[str, int]) -> dict:
    """The record's payload with references resolved in this bank, refused when the pages could not show it."""
    payload = record.data.get("payload")
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise Unresolved(record.line, "review_item.payload must be an object", "payload")
    payload = payload_from_refs(payload, episodes=episodes, beliefs=beliefs)
    citations = payload.get("citations")
    if citations is not None and not (
        isinstance(citations, list)
        and all(isinstance(c, dict) and isinstance(c.get("quote", ""), str) for c in citations)
    ):
        raise Unresolved(record.line, "review_item.payload.citations must be a list of {quote, episode_id}", "payload")
    for name, limit in _PAYLOAD_TEXT.items():
        value = payload.get(name)
        if value is not None and not (isinstance(value, str) and len(value) <= limit):
            raise Unresolved(record.line, f"review_item.payload.{name} must be a string of at most {limit}", "payload")
    return payload


def write_review_items(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    beliefs = ctx.belief_ids({r.data.get("belief") for r in records} - {None})
    refs = set().union(*(payload_episode_refs(r.data.get("payload")) for r in records))
    episodes = ctx.episode_ids(refs)
    existing = _review_lookup(bank, {(r.data["kind"], r.data["title"], r.data["created_at"]) for r in records})
    new = 0
    for record in records:
        d = record.data
        kind = choice(record, "kind")
        status = choice(record, "review_status", ReviewItem.Status.PENDING, field_name="status")
        identity = (kind, d["title"], d["created_at"])
        if identity in existing:
            continue
        payload = review_payload(record, episodes, beliefs)
        decided = ctx.trusted and status != ReviewItem.Status.PENDING
        belief = d.get("belief")
        if belief is not None and not isinstance(belief, str):
            raise Unresolved(record.line, "review_item.belief must be a belief key", "belief")
        item = ReviewItem.objects.create(
            tenant_id=bank.tenant_id,
            bank=bank,
            kind=kind,
            # An untrusted file proposes items; only a person (or a trusted file) decides them.
            status=status if ctx.trusted else ReviewItem.Status.PENDING,
            title=text(record, "title", limit=300),
            body=text(record, "body", limit=100_000),
            belief_id=beliefs.get(belief),
            payload=payload,
            comment=text(record, "comment", limit=4000) if decided else "",
            decided_by=text(record, "decided_by", limit=200) if decided else "",
            decided_at=d.get("decided_at") if decided else None,
        )
        created_at = d["created_at"] if ctx.trusted else not_after(d["created_at"], ctx.now)
        ReviewItem.objects.filter(pk=item.pk).update(created_at=created_at)  # auto_now_add on create
        existing[identity] = item.pk
        ctx.trusted_records["review_item"] += decided
        ctx.held_back["review_decision"] += status != ReviewItem.Status.PENDING and not ctx.trusted
        new += 1
    return Counter(review_item=new), len(records) - new


def _play_identity(record: Record) -> tuple[str, str, str, str]:
    return (
        record.data["text"],
        text(record, "play", limit=100),
        text(record, "segment", limit=100),
        text(record, "signature", limit=200),
    )


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
    reviews = _review_lookup(bank, {key for key in refs.values() if isinstance(key[1], str)}) if refs else {}
    existing = set(Play.objects.filter(bank=bank).values_list("text", "play", "segment", "signature"))
    if not ctx.trusted:
        return _plays_as_lessons(ctx, records, existing, {line for line, key in refs.items() if key in reviews})
    new = 0
    for record in records:
        identity = _play_identity(record)
        if identity in existing:
            continue
        existing.add(identity)
        play = Play.objects.create(
            tenant_id=bank.tenant_id,
            bank=bank,
            text=identity[0],
            play=identity[1],
            segment=identity[2],
            signature=identity[3],
            review_item_id=reviews.get(refs.get(record.line)),
            embedding=record.data["embedding"],
        )
        if record.data.get("created_at"):
            Play.objects.filter(pk=play.pk).update(created_at=record.data["created_at"])  # auto_now_add on create
        new += 1
    ctx.trusted_records["play"] += new
    return Counter(play=new), len(records) - new


def _plays_as_lessons(ctx: Context, records: list[Record], plays: set[tuple], gated: set[int]) -> tuple[Counter, int]:
    """Untrusted plays become pending lessons; one whose review item is in the bank waits on that item instead."""
    bank = ctx.bank
    lessons = set(ReviewItem.objects.filter(bank=bank, kind=ReviewItem.Kind.DISTILLATION).values_list("title", "body"))
    new = 0
    for record in records:
        identity = _play_identity(record)
        ctx.held_back["play"] += 1
        if identity in plays or record.line in gated or (identity[0][:300], identity[0]) in lessons:
            continue
        lessons.add((identity[0][:300], identity[0]))
        lesson = {"text": identity[0], "play": identity[1], "segment": identity[2], "signature": identity[3]}
        ReviewItem.objects.create(
            tenant_id=bank.tenant_id,
            bank=bank,
            kind=ReviewItem.Kind.DISTILLATION,
            title=identity[0][:300],
            body=identity[0],
            payload={**lesson, "session": "", "submitted_by": "import"},
        )
        new += 1
    return Counter(review_item=new), 0


def write_mental_models(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    existing = set(MentalModel.objects.filter(bank=bank).values_list("name", flat=True))
    new = 0
    for record in records:
        d = record.data
        fields = {name: d[name] for name in ("name", "question", "belief_filter", "max_beliefs") if d.get(name)}
        serializer = MentalModelInputSerializer(data=fields)
        if not serializer.is_valid():
            name, message = first_error(serializer.errors)
            raise Unresolved(record.line, f"mental_model.{name}: {message}", name)
        checked = serializer.validated_data
        if checked["name"] in existing:
            continue
        existing.add(checked["name"])
        MentalModel.objects.create(
            tenant_id=bank.tenant_id,
            bank=bank,
            name=checked["name"],
            question=checked["question"],
            belief_filter=checked["belief_filter"],
            max_beliefs=checked["max_beliefs"],
            question_embedding=d["embedding"],
        )
        new += 1
    return Counter(mental_model=new), len(records) - new
