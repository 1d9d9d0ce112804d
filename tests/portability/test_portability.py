"""Export and import: a bank moved into a new bank recalls the same and keeps every belief's history."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from memoryhub_client import errors

from banks.services.banks import bank_update
from beliefs.models import Belief, BeliefVersion, Episode, Evidence, Fact, MentalModel, Play
from beliefs.services.mental_models import mental_model_create, mental_model_refresh
from beliefs.services.retain import RetainItem, retain
from portability.records import vector_encode
from reviews.models import ReviewItem
from reviews.services.decisions import review_item_decide
from tests.helpers.callers import make_caller
from tests.helpers.consolidation import T0, days, dismissal, incident, remember
from workloads.distill import lessons_submit

QUERIES = [
    ("is DiskLatencyHigh on db-1 benign?", 400),
    ("what did Dana say about the Berlin office?", 120),
    ("exec reviews for accounts", 200),
    ("what happened last week", 80),
]


def _populate(bank) -> None:
    remember(bank, [dismissal("DiskLatencyHigh", "db-1", T0 + days(n)) for n in range(4)])
    remember(bank, [incident("DiskLatencyHigh", "db-1", T0 + days(6))])
    remember(bank, [dismissal("CpuHot", "web-2", T0 + days(n), "deploy warm-up") for n in range(3)])
    turns = [
        "Dana: I moved to Berlin in March and I work at the office near the river.",
        "Sam: How is the Berlin office?",
        "Dana: The Berlin office is quiet, I prefer it to the old one.",
    ]
    retain(bank=bank, items=[RetainItem(content=t, thread="conv-1", subject="user:dana", occurred_at=T0 + days(8 + i))
                             for i, t in enumerate(turns)])  # fmt: skip
    mental_model_create(bank=bank, name="benign", question="which alerts are benign?")
    mental_model_refresh(bank=bank, name="benign")
    [item] = lessons_submit(bank=bank, lessons=[{"text": "Exec reviews save accounts", "play": "exec-review",
                                                 "segment": "SMB"}], session="s1")  # fmt: skip
    review_item_decide(bank=bank, item_id=item.pk, decision="accept", comment="ok", actor="test")


def _recall_view(hub, bank_slug: str, bank) -> list:
    """Recall answers with database ids replaced by natural keys (ids differ between banks)."""
    episodes = dict(Episode.objects.filter(bank=bank).values_list("id", "dedupe_key"))
    beliefs = dict(Belief.objects.filter(bank=bank).values_list("id", "key"))
    plays = dict(Play.objects.filter(bank=bank).values_list("id", "text"))
    facts = {f.pk: (episodes[f.episode_id], f.subject_key, f.predicate, f.object_key, f.negated)
             for f in Fact.objects.filter(bank=bank)}  # fmt: skip
    by_kind = {"episode": episodes, "belief": beliefs, "play": plays, "fact": facts}
    view = []
    for query, budget in QUERIES:
        answer = hub.recall(bank_slug, query, budget_tokens=budget, explain=True)
        rows = []
        for item in answer.items:
            kind, _, number = item.id.partition(":")
            row = item.model_dump(mode="json", exclude={"id", "explain"})
            row["id"] = (kind, by_kind[kind][int(number)])
            row["provenance"]["episode_ids"] = sorted(episodes[i] for i in item.provenance.episode_ids)
            # An item that merges near-copies shows the latest told of those scoring alike; copies told at the same
            # moment are chosen among by database id, which follows import order in the copy, so the face (its id
            # and recording time) may be another of the same copies: compare the episodes it stands for instead.
            row["provenance"].pop("recorded_at")
            if kind == "episode":
                row["id"] = (kind, tuple(row["provenance"]["episode_ids"]))
            if row["provenance"]["metadata"].get("review_item_id"):
                review = ReviewItem.objects.get(pk=row["provenance"]["metadata"]["review_item_id"])
                row["provenance"]["metadata"]["review_item_id"] = (review.kind, review.title)
            # Scores agree to 1e-3: the last printed digit may round either way between two runs of the model.
            row["score"] = round(row["score"], 3)
            rows.append(row)
        # Items of equal score may come in either order (ties are broken by database id, and ids differ
        # between the banks): compare them best first, equal scores by content.
        rows.sort(key=lambda row: (-row["score"], json.dumps(row, sort_keys=True)))
        view.extend((query, row) for row in rows)
        view.append((query, answer.tokens_used, answer.candidates, answer.dropped_by_budget))
    return view


def _histories(bank) -> dict:
    episodes = dict(Episode.objects.filter(bank=bank).values_list("id", "dedupe_key"))
    evidence = {e.pk: (episodes[e.episode_id], e.stance) for e in Evidence.objects.filter(bank=bank)}
    histories = {}
    for belief in Belief.objects.filter(bank=bank):
        versions = [
            (v.version, v.cause, v.old_statement, v.new_statement, v.old_confidence, v.new_confidence,
             v.old_proof_count, v.new_proof_count, v.old_status, v.new_status, v.effective_at,
             sorted(evidence[i] for i in v.evidence_ids))
            for v in BeliefVersion.objects.filter(belief=belief).order_by("version")
        ]  # fmt: skip
        quotes = sorted((episodes[e.episode_id], e.stance, e.quote, e.weight) for e in belief.evidence.all())
        histories[belief.key] = (
            belief.statement,
            belief.status,
            belief.confidence,
            belief.proof_count,
            versions,
            quotes,
        )
    return histories


def test_round_trip_into_a_new_bank_recalls_the_same_and_keeps_belief_histories(hub, hub_for, caller):
    bank_update(bank=caller.bank, policy={"disposition": {"skepticism": 0.3}})
    _populate(caller.bank)
    assert BeliefVersion.objects.filter(bank=caller.bank, cause="invalidated").exists()  # a history, not one row
    lines = list(hub.portability.export_lines(caller.bank.slug))
    header = json.loads(lines[0])
    assert header["type"] == "header" and header["bank"]["policy"] == {"disposition": {"skepticism": 0.3}}
    types = [json.loads(line)["type"] for line in lines[1:]]
    assert types == sorted(types, key=["episode", "fact", "fact_invalidation", "belief", "evidence",
                                       "belief_version", "review_item", "play", "mental_model"].index)  # fmt: skip
    assert not any(re.search(r'"(id|episode_id|belief_id)":', line) for line in lines)  # no database ids travel

    target = make_caller()  # another tenant: the bank moves between tenants
    target_hub = hub_for(target.raw_key)
    progress = []
    totals = target_hub.portability.import_lines(
        target.bank.slug, lines, batch_lines=7, apply_settings=True, trust_file=True,
        progress=lambda n, t: progress.append(n),
    )  # fmt: skip
    assert totals["settings_applied"] and progress[-1] == len(lines) and len(progress) == -(-(len(lines) - 1) // 7)
    source, copy = caller.bank, target.bank
    copy.refresh_from_db()
    assert copy.policy == source.policy
    for model in (Episode, Fact, Belief, Evidence, BeliefVersion, ReviewItem, Play, MentalModel):
        assert model.objects.filter(bank=copy).count() == model.objects.filter(bank=source).count() > 0, model
    assert totals["created"]["episode"] == Episode.objects.filter(bank=source).count()

    assert _recall_view(target_hub, copy.slug, copy) == _recall_view(hub, source.slug, source)
    assert _histories(copy) == _histories(source)
    strip = lambda text: re.sub(r"\[belief \d+\]", "", text)  # noqa: E731
    assert strip(MentalModel.objects.get(bank=copy).answer) == strip(MentalModel.objects.get(bank=source).answer)
    assert Play.objects.get(bank=copy).review_item.status == "accepted"

    again = target_hub.portability.import_lines(target.bank.slug, lines, batch_lines=50, trust_file=True)
    assert again["created"] == {} and again["duplicates"]["episode"] == Episode.objects.filter(bank=source).count()


def test_a_bad_line_names_its_line_and_stores_nothing_of_its_batch(hub, caller):
    lines = [json.dumps({"content": f"note {n}", "occurred_at": "2026-03-01T10:00:00Z"}) for n in range(1, 11)]
    lines[6] = '{"content": "note 7", "occurred_at": "yesterday"}'
    with pytest.raises(errors.ImportLineInvalid) as bad:
        hub.portability.import_lines(caller.bank.slug, lines, format="jsonl", batch_lines=5)
    assert bad.value.extra["line"] == 7 and bad.value.extra["field"] == "occurred_at"
    assert "line 7" in bad.value.detail and bad.value.extra["batch"] == {"first_line": 6, "last_line": 10}
    assert sorted(Episode.objects.filter(bank=caller.bank).values_list("content", flat=True)) == sorted(
        f"note {n}" for n in range(1, 6)
    )
    lines[6] = json.dumps({"content": "note 7", "occurred_at": "2026-03-01T10:00:00Z"})
    fixed = hub.portability.import_lines(caller.bank.slug, lines, format="jsonl", batch_lines=5)
    assert fixed["created"] == {"episode": 5} and fixed["duplicates"] == {"episode": 5}
    episode = Episode.objects.get(bank=caller.bank, content="note 7")
    assert episode.provenance == "imported" and episode.source == "import"


def test_a_reference_to_an_unknown_episode_is_a_bad_line(hub, caller):
    record = {"type": "fact", "episode": "hash:nope", "subject": "a", "subject_key": "a", "predicate": "is",
              "object": "b", "object_key": "b", "statement": "a is b", "quote": "a is b", "quote_start": 0,
              "quote_end": 6, "extractor": "rules", "valid_at": "2026-01-01T00:00:00Z",
              "created_at": "2026-01-01T00:00:00Z"}  # fmt: skip
    with pytest.raises(errors.ImportLineInvalid) as bad:
        hub.portability.import_lines(caller.bank.slug, ['{"content": "x"}', json.dumps(record)])
    assert bad.value.extra["line"] == 1 and "unknown record type" in bad.value.detail  # a plain item is not a record
    with pytest.raises(errors.ImportLineInvalid) as bad:
        hub.portability.import_lines(caller.bank.slug, [json.dumps(record)], trust_file=True)
    assert bad.value.extra["line"] == 1 and "not in this bank" in bad.value.detail
    untrusted = hub.portability.import_lines(caller.bank.slug, [json.dumps(record)])  # facts are derived, not read
    assert untrusted["held_back"] == {"fact": 1} and untrusted["created"] == {} and not Fact.objects.exists()


def test_mem0_export_imports_as_episodes_once(hub, caller, tmp_path):
    document = {"results": [
        {"id": "m-1", "memory": "Prefers vegetarian food", "user_id": "alex", "created_at": "2025-05-01T10:00:00Z",
         "metadata": {"type": "preference"}, "categories": ["food"]},
        {"id": "m-2", "memory": "Works at TechCorp as a senior engineer", "user_id": "alex", "run_id": "r-9",
         "created_at": "2025-05-02T10:00:00+00:00"},
    ]}  # fmt: skip
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(document))
    first = hub.portability.import_file(caller.bank.slug, path, format="mem0")
    second = hub.portability.import_file(caller.bank.slug, path, format="mem0")
    assert first["created"] == {"episode": 2} and second["duplicates"] == {"episode": 2}
    episode = Episode.objects.get(bank=caller.bank, content="Prefers vegetarian food")
    assert (episode.subject, episode.source, episode.provenance) == ("alex", "mem0", "imported")
    assert episode.metadata == {"type": "preference", "mem0": {"id": "m-1", "categories": ["food"]}}
    assert Episode.objects.get(bank=caller.bank, thread="r-9").occurred_at.isoformat() == "2025-05-02T10:00:00+00:00"
    answer = hub.recall(caller.bank.slug, "what food does alex like?", budget_tokens=50)
    assert answer.items[0].text == "Prefers vegetarian food"


def test_plain_import_queues_extraction_and_passes_memory_defense(
    hub, caller, eager_tasks, django_capture_on_commit_callbacks
):
    event = {"event": "dismissal", "signature": "DiskLatencyHigh", "host": "db-9", "reason": "backup"}
    line = {"content": "Analyst closed DiskLatencyHigh on db-9 as benign: backup.", "subject": "ops", "metadata": event}
    secret = {"content": "deploy key ghp_" + "a1B2" * 9 + " for the runner"}
    with django_capture_on_commit_callbacks(execute=True):
        totals = hub.portability.import_lines(caller.bank.slug, [json.dumps(line), json.dumps(secret)], format="jsonl")
    assert totals["extraction_queued"] and totals["redacted"] == {"github_token": 1}
    assert Fact.objects.filter(bank=caller.bank, subject__icontains="DiskLatencyHigh").exists()
    assert "ghp_" not in "".join(Episode.objects.filter(bank=caller.bank).values_list("content", flat=True))
    bank_update(bank=caller.bank, policy={"defense": {"mode": "block"}})
    with pytest.raises(errors.MemoryDefenseBlocked) as blocked:
        hub.portability.import_lines(caller.bank.slug, ['{"content": "fine"}', json.dumps(secret)], format="jsonl")
    assert blocked.value.extra["line"] == 2 and "ghp_" not in json.dumps(blocked.value.extra)
    assert not Episode.objects.filter(bank=caller.bank, content="fine").exists()


def test_a_large_import_streams_in_batches_with_progress(hub, caller):
    rng = np.random.default_rng(3)
    header = {"type": "header", "format": "memoryhub", "version": 1,
              "embedding": {"model": "all-MiniLM-L6-v2", "dimensions": 384}}  # fmt: skip
    from portability.services.exporting import _model_name

    header["embedding"]["model"] = _model_name()
    lines = [json.dumps(header)]
    for n in range(1500):
        vector = rng.normal(size=384).astype(np.float32)
        lines.append(json.dumps({
            "type": "episode", "ref": f"key:bulk-{n}", "content": f"bulk record {n} about host db-{n % 40}",
            "occurred_at": "2026-02-01T00:00:00Z", "recorded_at": "2026-02-01T00:00:00Z",
            "embedding": vector_encode(vector / np.linalg.norm(vector)),
        }))  # fmt: skip
    progress = []
    totals = hub.portability.import_lines(
        caller.bank.slug, lines, batch_lines=500, progress=lambda n, t: progress.append(n)
    )
    assert progress == [501, 1001, 1501] and totals["batches"] == 3 and totals["created"] == {"episode": 1500}
    assert totals["extraction_queued"] is True
    answer = hub.recall(caller.bank.slug, "bulk record 1234", budget_tokens=40, channels=["keyword"])
    assert answer.items[0].text == "bulk record 1234 about host db-34"


def test_export_needs_an_admin_key_and_import_a_known_format(hub_for, caller):
    reader = make_caller(bank=caller.bank, scopes=("read",))
    with pytest.raises(errors.PermissionDenied):
        list(hub_for(reader.raw_key).portability.export_lines(caller.bank.slug))
    with pytest.raises(errors.ImportFormatUnknown):
        hub_for(caller.raw_key).portability.import_lines(caller.bank.slug, ["{}"], format="csv")
