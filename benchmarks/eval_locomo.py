"""LoCoMo evidence-recall evaluation through the public API (``make eval``).

Protocol (shared/eval/README.md): one bank per conversation, every turn retained as one
episode (``occurred_at`` from its session's date, ``dia_id`` in metadata). For every
question of categories 1-4 and every budget B, recall under B and count the share of the
question's evidence turns found in the returned items' provenance. Baselines run in the
same process on the same banks: keyword only, semantic only, most recent first; the
ablations switch single parts of the full engine off (request options, or in-process
settings for mechanisms the API does not expose).

Per mode and budget the result holds the figure overall, per conversation, per category
and per conversation and category. With ``--held-out MODES`` it also estimates how a
choice among those modes generalises: for each conversation, the mode that scores best
on the *other* conversations is picked and its figures on the held-out one are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path

from common import ROOT, machine, setup_django, summary_ms, write_result
from eval_modes import MODES

BUDGETS = [256, 512, 1024, 2048, 4096, 8192, 16384]
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def _eval_dir() -> Path:
    """``MEMORYHUB_LOCOMO_DIR``, else the first ``shared/eval/locomo`` above the checkout."""
    if os.environ.get("MEMORYHUB_LOCOMO_DIR"):
        return Path(os.environ["MEMORYHUB_LOCOMO_DIR"])
    for parent in ROOT.parents:
        if (parent / "shared" / "eval" / "locomo").is_dir():
            return parent / "shared" / "eval" / "locomo"
    return ROOT.parent / "shared" / "eval" / "locomo"


EVAL_DIR = _eval_dir()


def load_conversation(path: Path) -> tuple[list[dict], list[dict]]:
    data = json.loads(path.read_text())
    conversation = data.get("conversation", data)
    turns = []
    session = 1
    while f"session_{session}" in conversation:
        stamp = datetime.strptime(conversation[f"session_{session}_date_time"], "%I:%M %p on %d %B, %Y")
        for index, turn in enumerate(conversation[f"session_{session}"]):
            text = turn["text"]
            if turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            turns.append(
                {
                    "content": f"{turn['speaker']}: {text}",
                    "occurred_at": (stamp + timedelta(seconds=30 * index)).isoformat() + "Z",
                    "source": "chat",
                    "subject": turn["speaker"],
                    "thread": f"session-{session}",
                    "metadata": {"dia_id": turn["dia_id"], "session": session},
                }
            )
        session += 1
    questions = []
    for qa in data["qa"]:
        if qa.get("category") == 5:
            continue
        evidence = {part.strip() for item in qa.get("evidence", []) for part in str(item).split(";") if part.strip()}
        questions.append({"question": qa["question"], "category": qa["category"], "evidence": sorted(evidence)})
    return turns, questions


def _bank_for(client, tenant, path: Path, turns: list[dict], *, reuse: bool):
    """The conversation's bank: reused as it is when ``reuse`` and it holds every turn, else retained afresh."""
    from banks.models import Bank
    from banks.services.banks import bank_create

    slug = f"locomo-{path.stem}"
    bank = Bank.objects.filter(tenant=tenant, slug=slug).first()
    if bank is not None and reuse and bank.episodes.count() == len(turns):
        return bank, False
    if bank is not None:
        raise SystemExit(f"bank {slug} exists but is incomplete: run without --reuse")
    bank = bank_create(tenant=tenant, slug=slug)
    for offset in range(0, len(turns), 100):
        response = client.post(
            f"/api/v1/banks/{bank.slug}/retain", {"items": turns[offset : offset + 100]}, format="json"
        )
        assert response.status_code == 201, response.content[:300]
    return bank, True


def _mean(values):
    return round(sum(values) / len(values), 4) if values else None


def _table(scores: dict) -> dict:
    """``scores[(mode, budget)][(conversation, category)] -> [share, ...]`` as the result's nested table."""
    table: dict = {}
    for (mode, budget), cells in scores.items():
        every = [v for values in cells.values() for v in values]
        conversations = sorted({c for c, _ in cells})
        categories = sorted({k for _, k in cells})

        def pick(conversation=None, category=None, cells=cells):
            return [
                v
                for (c, k), values in cells.items()
                if conversation in (None, c) and category in (None, k)
                for v in values
            ]

        table.setdefault(mode, {})[str(budget)] = {
            "evidence_recall": _mean(every),
            "evidence_recall_by_conversation": {c: _mean(pick(conversation=c)) for c in conversations},
            "mean_of_conversations": _mean([_mean(pick(conversation=c)) for c in conversations]),
            "all_evidence_rate": _mean([v == 1.0 for v in every]),
            "by_category": {
                CATEGORIES[k]: {
                    "evidence_recall": _mean(pick(category=k)),
                    "all_evidence_rate": _mean([v == 1.0 for v in pick(category=k)]),
                    "questions": len(pick(category=k)),
                }
                for k in categories
            },
            "by_conversation_and_category": {
                c: {CATEGORIES[k]: _mean(pick(c, k)) for k in categories if pick(c, k)} for c in conversations
            },
        }
    return table


def held_out(table: dict, candidates: list[str], budget: str = "1024") -> dict:
    """Leave one conversation out: pick the candidate mode best on the others (mean of their figures at ``budget``),
    report its figures on the one left out. The mean over the rotations estimates unseen conversations."""
    conversations = sorted(table[candidates[0]][budget]["evidence_recall_by_conversation"])
    rotations = {}
    for left_out in conversations:
        others = [c for c in conversations if c != left_out]

        def on_others(mode, others=others):
            by = table[mode][budget]["evidence_recall_by_conversation"]
            return sum(by[c] for c in others) / len(others)

        chosen = max(candidates, key=on_others)
        rotations[left_out] = {
            "chosen": chosen,
            "tuned_on": others,
            **{
                b: {
                    "evidence_recall": table[chosen][b]["evidence_recall_by_conversation"][left_out],
                    "by_category": table[chosen][b]["by_conversation_and_category"][left_out],
                }
                for b in table[chosen]
            },
        }
    budgets = list(table[candidates[0]])
    return {
        "candidates": candidates,
        "selection_budget": budget,
        "rotations": rotations,
        "mean_held_out": {b: _mean([rotations[c][b]["evidence_recall"] for c in conversations]) for b in budgets},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--limit", type=int, default=0, help="questions per conversation (0: all)")
    parser.add_argument("--conversations", default="", help="comma-separated file stems (default: all)")
    parser.add_argument("--output", default="locomo")
    parser.add_argument("--database", default="memoryhub_eval")
    parser.add_argument("--reuse", action="store_true", help="keep the database and banks of an earlier run")
    parser.add_argument("--held-out", default="", help="comma-separated modes to choose among, per left-out file")
    parser.add_argument("--details", default="", help="write each question's found and missed evidence here")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]

    # The evaluation measures recall, not the rate limiter: one client sends thousands of requests a minute.
    os.environ.setdefault("MEMORYHUB_RATE_LIMIT_PER_MINUTE", "1000000000")
    os.environ.setdefault("MEMORYHUB_TENANT_RATE_LIMIT_PER_MINUTE", "1000000000")
    setup_django(args.database, fresh=not args.reuse)
    from django.conf import settings
    from django.test import override_settings
    from rest_framework.test import APIClient

    from banks.models import Tenant
    from banks.services.api_keys import api_key_issue
    from banks.services.banks import tenant_create
    from memoryhub.embeddings import warm_up

    warm_up()
    tenant = Tenant.objects.filter(slug="eval").first() or tenant_create(slug="eval", name="Evaluation")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_issue(tenant=tenant, name='eval').raw_key}")
    modes = {name: MODES[name] for name in args.modes.split(",")}

    scores: dict = defaultdict(lambda: defaultdict(list))  # (mode, budget) -> (conversation, category) -> [share]
    latencies: dict = defaultdict(list)
    spans: dict = defaultdict(lambda: defaultdict(list))  # mode -> stage or channel -> [ms]
    details = []
    wanted = set(filter(None, args.conversations.split(",")))
    conversations = [p for p in sorted(EVAL_DIR.glob("*.json")) if not wanted or p.stem in wanted]
    for path in conversations:
        turns, questions = load_conversation(path)
        if args.limit:
            questions = questions[: args.limit]
        bank, retained = _bank_for(client, tenant, path, turns, reuse=args.reuse)
        known = {turn["metadata"]["dia_id"] for turn in turns}
        print(f"{path.name}: {len(turns)} turns ({'retained' if retained else 'reused'}), {len(questions)} questions")
        for mode, spec in modes.items():
            options = {k: v for k, v in spec.items() if k != "settings"}
            with override_settings(MEMORYHUB={**settings.MEMORYHUB, **spec.get("settings", {})}):
                for question in questions:
                    evidence = [e for e in question["evidence"] if e in known]
                    if not evidence:
                        continue
                    for budget in budgets:
                        started = time.perf_counter()
                        response = client.post(
                            f"/api/v1/banks/{bank.slug}/recall",
                            {"query": question["question"], "budget_tokens": budget, "explain": True, **options},
                            format="json",
                        )
                        latencies[mode].append(time.perf_counter() - started)
                        assert response.status_code == 200, response.content[:300]
                        payload = response.json()
                        for name, ms in payload["explain"]["channel_ms"].items():
                            spans[mode][name].append(ms)
                        found = [item["provenance"]["metadata"].get("dia_id") for item in payload["items"]]
                        share = len(set(found) & set(evidence)) / len(evidence)
                        scores[(mode, budget)][(path.stem, question["category"])].append(share)
                        if args.details:
                            details.append(
                                {
                                    "conversation": path.stem,
                                    "mode": mode,
                                    "budget": budget,
                                    "category": CATEGORIES[question["category"]],
                                    "question": question["question"],
                                    "evidence": evidence,
                                    "found": found,
                                    "share": share,
                                }
                            )

    table = _table(scores)
    result = {
        "benchmark": "locomo-evidence-recall",
        "machine": machine(),
        "conversations": [p.stem for p in conversations],
        "budgets": budgets,
        "modes": modes,
        "results": table,
        "latency": {mode: summary_ms(values) for mode, values in latencies.items()},
        # Mean wall time of each stage and channel span per recall (explain's channel_ms; 0 where a span did not run).
        "span_ms": {
            mode: {name: round(sum(values) / len(latencies[mode]), 3) for name, values in sorted(by_name.items())}
            for mode, by_name in spans.items()
        },
        "token_counter": "tiktoken cl100k_base over each item's text",
    }
    if args.held_out:
        result["held_out"] = held_out(table, args.held_out.split(","))
    path = write_result(args.output, result)
    if args.details:
        Path(args.details).write_text("\n".join(json.dumps(d) for d in details) + "\n")
    header = "mode".ljust(26) + "".join(str(b).rjust(8) for b in budgets)
    print(header)
    for mode in modes:
        row = [table[mode][str(b)]["mean_of_conversations"] for b in budgets]
        print(mode.ljust(26) + "".join(f"{v:8.3f}" for v in row))
    if args.held_out:
        print("held out:", json.dumps(result["held_out"]["mean_held_out"]))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
