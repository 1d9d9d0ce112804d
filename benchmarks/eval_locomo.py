"""LoCoMo evidence-recall evaluation through the public API (``make eval``).

Protocol (shared/eval/README.md): one bank per conversation, every turn retained as one
episode (``occurred_at`` from its session's date, ``dia_id`` in metadata). For every
question of categories 1-4 and every budget B, recall under B and count the share of the
question's evidence turns found in the returned items' provenance. Baselines run in the
same process on the same banks: keyword only, semantic only, most recent first; the
ablations switch single parts of the full engine off.
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


def _eval_dir() -> Path:
    """``MEMORYHUB_LOCOMO_DIR``, else the first ``shared/eval/locomo`` above the checkout."""
    if os.environ.get("MEMORYHUB_LOCOMO_DIR"):
        return Path(os.environ["MEMORYHUB_LOCOMO_DIR"])
    for parent in ROOT.parents:
        if (parent / "shared" / "eval" / "locomo").is_dir():
            return parent / "shared" / "eval" / "locomo"
    return ROOT.parent / "shared" / "eval" / "locomo"


EVAL_DIR = _eval_dir()
BUDGETS = [256, 512, 1024, 2048, 4096, 8192, 16384]
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--limit", type=int, default=0, help="questions per conversation (0: all)")
    parser.add_argument("--output", default="locomo")
    parser.add_argument("--database", default="memoryhub_eval")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]

    # The evaluation measures recall, not the rate limiter: one client sends thousands of requests a minute.
    os.environ.setdefault("MEMORYHUB_RATE_LIMIT_PER_MINUTE", "1000000000")
    os.environ.setdefault("MEMORYHUB_TENANT_RATE_LIMIT_PER_MINUTE", "1000000000")
    setup_django(args.database, fresh=True)
    from rest_framework.test import APIClient

    from banks.services.api_keys import api_key_issue
    from banks.services.banks import bank_create, tenant_create
    from memoryhub.embeddings import warm_up

    warm_up()
    tenant = tenant_create(slug="eval", name="Evaluation")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_issue(tenant=tenant, name='eval').raw_key}")
    modes = {name: MODES[name] for name in args.modes.split(",")}

    scores: dict = defaultdict(lambda: defaultdict(list))  # (mode, budget) -> category -> [recall]
    complete: dict = defaultdict(lambda: defaultdict(list))
    latencies: dict = defaultdict(list)
    per_conversation: dict = defaultdict(lambda: defaultdict(list))
    conversations = sorted(EVAL_DIR.glob("*.json"))
    for path in conversations:
        turns, questions = load_conversation(path)
        if args.limit:
            questions = questions[: args.limit]
        bank = bank_create(tenant=tenant, slug=f"locomo-{path.stem}")
        for offset in range(0, len(turns), 100):
            response = client.post(
                f"/api/v1/banks/{bank.slug}/retain", {"items": turns[offset : offset + 100]}, format="json"
            )
            assert response.status_code == 201, response.content[:300]
        known = {turn["metadata"]["dia_id"] for turn in turns}
        print(f"{path.name}: {len(turns)} turns, {len(questions)} questions")
        for question in questions:
            evidence = [e for e in question["evidence"] if e in known]
            if not evidence:
                continue
            for mode, options in modes.items():
                for budget in budgets:
                    started = time.perf_counter()
                    response = client.post(
                        f"/api/v1/banks/{bank.slug}/recall",
                        {"query": question["question"], "budget_tokens": budget, **options},
                        format="json",
                    )
                    latencies[mode].append(time.perf_counter() - started)
                    assert response.status_code == 200, response.content[:300]
                    found = {item["provenance"]["metadata"].get("dia_id") for item in response.json()["items"]}
                    share = len(found & set(evidence)) / len(evidence)
                    scores[(mode, budget)][question["category"]].append(share)
                    complete[(mode, budget)][question["category"]].append(share == 1.0)
                    per_conversation[(mode, budget)][path.stem].append(share)

    def mean(values):
        return round(sum(values) / len(values), 4) if values else None

    table = {}
    for (mode, budget), by_category in scores.items():
        every = [v for values in by_category.values() for v in values]
        table.setdefault(mode, {})[str(budget)] = {
            "evidence_recall": mean(every),
            "evidence_recall_by_conversation": {c: mean(v) for c, v in per_conversation[(mode, budget)].items()},
            "mean_of_conversations": mean([mean(v) for v in per_conversation[(mode, budget)].values()]),
            "all_evidence_rate": mean([v for values in complete[(mode, budget)].values() for v in values]),
            "by_category": {
                CATEGORIES[c]: {
                    "evidence_recall": mean(v),
                    "all_evidence_rate": mean(complete[(mode, budget)][c]),
                    "questions": len(v),
                }
                for c, v in sorted(by_category.items())
            },
        }
    result = {
        "benchmark": "locomo-evidence-recall",
        "machine": machine(),
        "conversations": [p.stem for p in conversations],
        "budgets": budgets,
        "modes": {name: options for name, options in modes.items()},
        "results": table,
        "latency": {mode: summary_ms(values) for mode, values in latencies.items()},
        "token_counter": "tiktoken cl100k_base over each item's text",
    }
    path = write_result(args.output, result)
    header = "mode".ljust(22) + "".join(str(b).rjust(8) for b in budgets)
    print(header)
    for mode in modes:
        row = [table[mode][str(b)]["mean_of_conversations"] for b in budgets]
        print(mode.ljust(22) + "".join(f"{v:8.3f}" for v in row))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
