"""Derived records — facts, their invalidations, beliefs, evidence and belief versions — from a trusted file.

These are what extraction and consolidation compute from episodes. An import writes them
only when an admin asked for the file to be trusted (``trust_file``); otherwise they are
held back and the workers derive them again from the imported episodes. Even then a fact's
quarantine is not read from the file: it follows its episode's injection flags, as
extraction sets it.
"""

from __future__ import annotations

from collections import Counter

from beliefs.models import Belief, BeliefVersion, Episode, Evidence, Fact, Provenance
from portability.records import FACT_KEY_FIELDS, Record
from portability.services.writers.common import Context, Unresolved, insert_new
from portability.services.writers.common import choice as _choice
from portability.services.writers.common import need as _need


def _fact_key(ctx_ids: dict[str, int], key: dict, record: Record, field: str) -> tuple:
    if not isinstance(key, dict) or set(FACT_KEY_FIELDS) - set(key):
        raise Unresolved(record.line, f"{field} must name {', '.join(FACT_KEY_FIELDS)}", field)
    if not all(isinstance(key[name], str) for name in ("subject_key", "predicate", "object_key")):
        raise Unresolved(record.line, f"{field} must name its keys as strings", field)
    episode_id = _need(ctx_ids, key["episode"], record, "episode", field)
    return (episode_id, key["subject_key"], key["predicate"], key["object_key"], bool(key["negated"]))


def write_facts(ctx: Context, records: list[Record]) -> tuple[Counter, int]:
    bank = ctx.bank
    episodes = ctx.episode_ids({r.data["episode"] for r in records})
    flagged = dict(
        Episode.objects.filter(bank=bank, pk__in=set(episodes.values())).values_list("id", "injection_flags")
    )
    rows = []
    for record in records:
        d = record.data
        episode_id = _need(episodes, d["episode"], record, "episode", "episode")
        _choice(record, "extractor")
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
                # As extraction sets it: a flagged episode's facts wait for a release (never read from the file).
                quarantined=bool(flagged.get(episode_id)),
            )
        )
    return insert_new(Fact, bank=bank, rows=rows, kind="fact", total=len(records))


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
    return insert_new(Belief, bank=bank, rows=rows, kind="belief", total=len(records))


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
    return insert_new(Evidence, bank=bank, rows=rows, kind="evidence", total=len(records))


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
                new_status=_choice(record, "new_status"),
                evidence_ids=evidence_ids,
                old_statement=d.get("old_statement") or "",
                old_status=_choice(record, "old_status", ""),
                **{
                    n: d.get(n)
                    for n in (
                        "version",
                        "new_statement",
                        "old_confidence",
                        "new_confidence",
                        "old_proof_count",
                        "new_proof_count",
                        "effective_at",
                    )
                },
            )  # fmt: skip
        )
    return insert_new(BeliefVersion, bank=bank, rows=rows, kind="belief_version", total=len(records))
