"""Consolidate: fold extracted facts into evidence-backed, versioned beliefs.

Facts are grouped by *slot* (normalised subject + predicate) and value (object). Each
value a slot has held becomes a ``Belief`` once enough distinct episodes support it
(``BankPolicy.min_support``); its ``Evidence`` rows quote those episodes exactly. In a
one-value (functional) slot, a later different value contradicts the earlier one and
closes its facts' and belief's validity (bi-temporal invalidation — nothing is deleted).
Confidence and status follow ``beliefs.engine.confidence``.

Every run recomputes the touched slots from the stored facts and evidence, so running
it again on unchanged input writes nothing. A bank is consolidated by one worker at a
time (a transaction-scoped advisory lock), chunk by chunk: a worker killed mid-chunk
leaves that chunk rolled back and every earlier chunk complete.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from banks.models import Bank
from banks.policy import BankPolicy, bank_policy
from beliefs.engine.confidence import CONTRADICTS, SUPPORTS, assess_evidence, evidence_weight
from beliefs.extractors import claim_statement
from beliefs.models import Belief, BeliefVersion, Evidence, Fact
from memoryhub import metrics
from memoryhub.embeddings import embed_texts

CHUNK_FACTS = 1000
_LOCK_NAMESPACE = 7301
Slot = tuple[str, str]


@dataclass(frozen=True)
class ConsolidationResult:
    facts: int = 0
    beliefs_formed: int = 0
    beliefs_changed: int = 0
    remaining: int = 0
    busy: bool = False
    paused: bool = False


def belief_key(subject_key: str, predicate: str, object_key: str) -> str:
    return hashlib.sha256(f"{subject_key}\x1f{predicate}\x1f{object_key}".encode()).hexdigest()


def consolidate(*, bank: Bank, now: datetime | None = None, limit: int | None = None) -> ConsolidationResult:
    """Fold the bank's unconsolidated facts into beliefs; ``busy`` when another worker holds the bank."""
    policy = bank_policy(bank)
    if policy.background_paused:
        return ConsolidationResult(remaining=_pending(bank), paused=True)
    now = now or timezone.now()
    limit = limit or policy.max_episodes_per_run
    facts_done = formed = changed = 0
    while facts_done < limit:
        with transaction.atomic():
            if not _try_lock(bank):
                return ConsolidationResult(facts_done, formed, changed, _pending(bank), busy=True)
            chunk = list(
                Fact.objects.filter(bank=bank, consolidated_at__isnull=True)
                .order_by("created_at", "id")
                .values_list("id", "subject_key", "predicate")[: min(CHUNK_FACTS, limit - facts_done)]
            )
            if not chunk:
                break
            outcome = slots_refresh(
                bank=bank,
                slots={(s, p) for _, s, p in chunk},
                policy=policy,
                now=now,
                new_fact_ids={c[0] for c in chunk},
            )
            Fact.objects.filter(pk__in=[c[0] for c in chunk]).update(consolidated_at=now)
        facts_done += len(chunk)
        formed += outcome.formed
        changed += outcome.changed
    return ConsolidationResult(facts_done, formed, changed, _pending(bank))


def _pending(bank: Bank) -> int:
    return Fact.objects.filter(bank=bank, consolidated_at__isnull=True).count()


def _try_lock(bank: Bank) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [_LOCK_NAMESPACE, bank.pk & 0x7FFFFFFF])
        return bool(cursor.fetchone()[0])


def lock_bank_for_consolidation(bank: Bank) -> None:
    """Wait for and take the bank's consolidation lock until the current transaction ends."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_NAMESPACE, bank.pk & 0x7FFFFFFF])


@dataclass(frozen=True)
class _SlotOutcome:
    formed: int
    changed: int
    belief_ids: tuple[int, ...]


_FACT_FIELDS = (
    "id",
    "episode_id",
    "subject",
    "subject_key",
    "predicate",
    "object",
    "object_key",
    "negated",
    "hedged",
    "functional",
    "provenance",
    "valid_at",
    "created_at",
    "quote",
    "quote_start",
    "quote_end",
    "invalid_at",
    "expired_at",
    "invalidated_by_id",
)


def slots_refresh(
    *,
    bank: Bank,
    slots: Iterable[Slot],
    policy: BankPolicy | None = None,
    now: datetime | None = None,
    new_fact_ids: set[int] | None = None,
    cause_hint: str | None = None,
) -> _SlotOutcome:
    """Recompute facts' validity and every belief of ``slots`` from what is stored. Call inside a transaction."""
    policy = policy or bank_policy(bank)
    now = now or timezone.now()
    slots = set(slots)
    if not slots:
        return _SlotOutcome(0, 0, ())
    facts_by_slot: dict[Slot, list[dict]] = defaultdict(list)
    rows = Fact.objects.filter(
        bank=bank,
        subject_key__in={s for s, _ in slots},
        predicate__in={p for _, p in slots},
        quarantined=False,  # instruction-like text and recall echoes never become evidence
    ).values(*_FACT_FIELDS)
    for row in rows:
        slot = (row["subject_key"], row["predicate"])
        if slot in slots:
            facts_by_slot[slot].append(row)
    beliefs = {
        (b.subject_key, b.predicate, b.object_key): b
        for b in Belief.objects.select_for_update()
        .prefetch_related("evidence")
        .filter(bank=bank, subject_key__in={s for s, _ in slots}, predicate__in={p for _, p in slots})
        if (b.subject_key, b.predicate) in slots
    }
    formed = changed = 0
    touched: list[int] = []
    pending_new: list[tuple[Belief, list[dict], list[dict], datetime | None]] = []
    for slot in sorted(slots):
        facts = sorted(facts_by_slot.get(slot, []), key=lambda f: (f["valid_at"], f["id"]))
        _close_fact_intervals(facts)
        values = {f["object_key"] for f in facts if not f["negated"]}
        values |= {key[2] for key in beliefs if key[:2] == slot}
        for value in sorted(values):
            support, against, superseded_at = _evidence_for_value(facts, value)
            belief = beliefs.get((*slot, value))
            if belief is None:
                weighted = [f for f in support if _weight(f, policy) > 0]
                if len({f["episode_id"] for f in weighted}) < policy.min_support:
                    continue  # not enough (weighted) evidence to form yet; the facts wait for more
                pending_new.append((_new_belief(bank, support), support, against, superseded_at))
                continue
            if _apply(belief, support, against, superseded_at, policy, now, new_fact_ids or set(), cause_hint):
                changed += 1
                touched.append(belief.pk)
    if pending_new:
        vectors = embed_texts([b.statement for b, *_ in pending_new])
        for (belief, support, against, superseded_at), vector in zip(pending_new, vectors, strict=True):
            belief.embedding = vector
            belief.save()
            _apply(belief, support, against, superseded_at, policy, now, new_fact_ids or set(), cause_hint, new=True)
            formed += 1
            touched.append(belief.pk)
    return _SlotOutcome(formed, changed, tuple(touched))


def _close_fact_intervals(facts: list[dict]) -> None:
    """Set ``invalid_at``/``expired_at`` on facts a later fact contradicts (sorted by valid time)."""
    updates = []
    for index, fact in enumerate(facts):
        if fact["negated"]:
            continue
        closer = None
        for later in facts[index + 1 :]:
            if later["valid_at"] <= fact["valid_at"]:
                continue
            same_value = later["object_key"] == fact["object_key"]
            if (later["negated"] and same_value) or (fact["functional"] and not later["negated"] and not same_value):
                closer = later
                break
        wanted = (
            (closer["valid_at"], max(closer["created_at"], fact["created_at"]), closer["id"])
            if closer
            else (None, None, None)
        )
        if (fact["invalid_at"], fact["expired_at"], fact["invalidated_by_id"]) != wanted:
            fact["invalid_at"], fact["expired_at"], fact["invalidated_by_id"] = wanted
            updates.append(Fact(pk=fact["id"], invalid_at=wanted[0], expired_at=wanted[1], invalidated_by_id=wanted[2]))
    if updates:
        Fact.objects.bulk_update(updates, ["invalid_at", "expired_at", "invalidated_by_id"])


def _evidence_for_value(facts: list[dict], value: str) -> tuple[list[dict], list[dict], datetime | None]:
    """Supporting facts, contradicting facts and (one-value slots) when a different value replaced it."""
    support = [f for f in facts if f["object_key"] == value and not f["negated"]]
    against = [f for f in facts if f["object_key"] == value and f["negated"]]
    superseded_at = None
    if support and any(f["functional"] for f in support):
        first_support = support[0]["valid_at"]
        last_support = support[-1]["valid_at"]
        others = [f for f in facts if f["object_key"] != value and not f["negated"]]
        against += [f for f in others if f["valid_at"] > first_support]
        superseded_at = next((f["valid_at"] for f in others if f["valid_at"] > last_support), None)
    return support, against, superseded_at


def _new_belief(bank: Bank, support: list[dict]) -> Belief:
    latest = support[-1]
    return Belief(
        tenant_id=bank.tenant_id,
        bank=bank,
        key=belief_key(latest["subject_key"], latest["predicate"], latest["object_key"]),
        subject=latest["subject"],
        subject_key=latest["subject_key"],
        predicate=latest["predicate"],
        object=latest["object"],
        object_key=latest["object_key"],
        statement=claim_statement(latest["subject"], latest["predicate"], latest["object"]),
        status=Belief.Status.ACTIVE,
        first_seen_at=support[0]["valid_at"],
        last_confirmed_at=latest["valid_at"],
        valid_from=support[0]["valid_at"],
        formed_at=max(f["created_at"] for f in support),
        version=0,
    )


def _weight(fact: dict, policy: BankPolicy) -> float:
    return evidence_weight(provenance=fact["provenance"], hedged=fact["hedged"], hedged_weight=policy.hedged_weight)


def _desired_evidence(belief: Belief, facts: list[dict], stance: str, policy: BankPolicy) -> dict[int, Evidence]:
    """One evidence row per episode: its most trusted fact."""
    chosen: dict[int, Evidence] = {}
    for fact in facts:
        weight = evidence_weight(
            provenance=fact["provenance"], hedged=fact["hedged"], hedged_weight=policy.hedged_weight
        )
        current = chosen.get(fact["episode_id"])
        if current is None or weight > current.weight:
            chosen[fact["episode_id"]] = Evidence(
                tenant_id=belief.tenant_id,
                bank_id=belief.bank_id,
                belief=belief,
                episode_id=fact["episode_id"],
                fact_id=fact["id"],
                stance=stance,
                quote=fact["quote"],
                quote_start=fact["quote_start"],
                quote_end=fact["quote_end"],
                weight=weight,
                observed_at=fact["valid_at"],
                recorded_at=fact["created_at"],
            )
    return chosen


def _apply(
    belief: Belief,
    support: list[dict],
    against: list[dict],
    superseded_at: datetime | None,
    policy: BankPolicy,
    now: datetime,
    new_fact_ids: set[int],
    cause_hint: str | None,
    *,
    new: bool = False,
) -> bool:
    """Bring one belief's evidence and assessment up to date; write a version when anything changed."""
    existing = {(e.episode_id, e.stance): e for e in belief.evidence.all()} if not new else {}
    wanted = {
        **{(ep, SUPPORTS): ev for ep, ev in _desired_evidence(belief, support, SUPPORTS, policy).items()},
        **{(ep, CONTRADICTS): ev for ep, ev in _desired_evidence(belief, against, CONTRADICTS, policy).items()},
    }
    added = Evidence.objects.bulk_create([ev for key, ev in wanted.items() if key not in existing])
    # Evidence that no fact backs any more (its fact was re-classified) goes; review evidence (no fact) stays.
    stale_ids = [ev.pk for key, ev in existing.items() if key not in wanted and ev.fact_id is not None]
    if stale_ids:
        Evidence.objects.filter(pk__in=stale_ids).delete()
    kept = [ev for key, ev in existing.items() if key in wanted or ev.fact_id is None] + added
    assessment = assess_evidence(kept, policy=policy, now=now, superseded_at=superseded_at)
    before = {
        "statement": belief.statement,
        "confidence": belief.confidence,
        "proof_count": belief.proof_count,
        "status": belief.status,
    }
    latest = support[-1] if support else None
    updates = {
        "status": assessment.status,
        "confidence": assessment.confidence,
        "base_confidence": assessment.base_confidence,
        "proof_count": assessment.proof_count,
        "contradiction_count": assessment.contradiction_count,
        "support_weight": assessment.support_weight,
        "contradiction_weight": assessment.contradiction_weight,
        "valid_to": assessment.valid_to,
    }
    if assessment.last_confirmed_at is not None:
        updates["last_confirmed_at"] = assessment.last_confirmed_at
    if latest is not None and latest["subject"] != belief.subject:
        updates["subject"] = latest["subject"]
    if latest is not None and not new:
        # Rebuilt from the latest remaining fact: after a deletion it may no longer quote erased wording.
        statement = claim_statement(latest["subject"], latest["predicate"], latest["object"])
        if statement != belief.statement:
            updates["statement"] = statement
            belief.embedding = embed_texts([statement])[0]
    if not new and all(getattr(belief, field) == value for field, value in updates.items()) and not added:
        return False
    for field, value in updates.items():
        setattr(belief, field, value)
    cause = _cause(before, assessment, new=new, hint=cause_hint, added=added)
    belief.version += 1
    belief.save()
    relevant = [ev.pk for ev in added if ev.fact_id in new_fact_ids] or [ev.pk for ev in added]
    knowledge_times = [ev.recorded_at for ev in added]
    BeliefVersion.objects.create(
        tenant_id=belief.tenant_id,
        bank_id=belief.bank_id,
        belief=belief,
        version=belief.version,
        cause=cause,
        old_statement="" if new else before["statement"],
        new_statement=belief.statement,
        old_confidence=None if new else before["confidence"],
        new_confidence=belief.confidence,
        old_proof_count=None if new else before["proof_count"],
        new_proof_count=belief.proof_count,
        old_status="" if new else before["status"],
        new_status=belief.status,
        evidence_ids=relevant,
        effective_at=max(knowledge_times) if knowledge_times else now,
    )
    metrics.observe_belief_change(cause)
    return True


def _cause(before: dict, assessment, *, new: bool, hint: str | None, added: list[Evidence]) -> str:
    if new:
        return BeliefVersion.Cause.FORMED
    if hint:
        return hint
    status = assessment.status
    if status == "invalidated" and before["status"] != "invalidated":
        return BeliefVersion.Cause.INVALIDATED
    if status in {"active", "contested"} and before["status"] in {"stale", "invalidated", "retracted"}:
        return BeliefVersion.Cause.RESTORED
    if any(ev.stance == CONTRADICTS for ev in added) or (status == "contested" and before["status"] != "contested"):
        return BeliefVersion.Cause.CONTRADICTED
    if status == "stale":
        return BeliefVersion.Cause.DECAYED
    return BeliefVersion.Cause.REINFORCED
