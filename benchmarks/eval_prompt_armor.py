"""Injection markers on the attack collections prompt-armor ships: a second set no rule was written against.

prompt-armor 0.9.1 (Apache-2.0) ships ``known_attacks.jsonl`` (25,158 texts labelled as attacks, each naming the
public collection it came from: LLMail-Inject's attacker e-mails, the SaTML 2024 CTF, Lakera's Gandalf, deepset's
and others) and ``benign_exemplars.jsonl`` (80 ordinary sentences in several languages that use an attack's verbs:
"discard the previous draft", "olvida el agendamiento"). Nobody here wrote rules or cases from it; its figures say
how the detectors do on attacks written by many hands. Two caveats, both in the results: some collections label
role-play requests as attacks ("You are Albert Einstein. Explain relativity"), so their recall understates; and
two collections (LLMail-Inject, ProtectAI's validation set) share eight-word runs with the fresh draw's texts, so
they were not used for training either.

    pip download prompt-armor==0.9.1 --no-deps -d /tmp/wheels
    .venv/bin/python benchmarks/eval_prompt_armor.py --wheel /tmp/wheels/prompt_armor-0.9.1-py3-none-any.whl

Results: ``results/defense-prompt-armor.json`` (rules alone, classifier alone, together; per collection).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import zipfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
os.environ["MEMORYHUB_INJECTION_CLASSIFIER"] = "0"  # the rules alone here; the classifier is scored beside them

RESULTS = HERE / "results" / "defense-prompt-armor.json"
ATTACKS = "prompt_armor/data/attacks/known_attacks.jsonl"
BENIGN = "prompt_armor/data/attacks/benign_exemplars.jsonl"


def _rows(wheel: zipfile.ZipFile, name: str) -> list[dict]:
    return [json.loads(line) for line in wheel.read(name).decode("utf-8").splitlines() if line.strip()]


def evaluate(path: Path) -> dict:
    from beliefs.defense.classifier import classifier_span
    from beliefs.defense.injection import injection_reasons

    with zipfile.ZipFile(path) as wheel:
        attacks, benign = _rows(wheel, ATTACKS), _rows(wheel, BENIGN)
    counts: dict[str, dict] = defaultdict(lambda: {"texts": 0, "rules": 0, "classifier": 0, "together": 0})
    for label, rows in (("attack", attacks), ("benign", benign)):
        for row in rows:
            by_rules, by_classifier = bool(injection_reasons(row["text"])), bool(classifier_span(row["text"]))
            stats = counts[f"{label}:{row.get('source', 'benign_exemplars')}"]
            stats["texts"] += 1
            stats["rules"] += by_rules
            stats["classifier"] += by_classifier
            stats["together"] += by_rules or by_classifier
    kinds = ("rules", "classifier", "together")
    per_collection = {
        name: {**stats, **{f"{k}_share": round(stats[k] / stats["texts"], 4) for k in kinds}}
        for name, stats in sorted(counts.items())
    }
    attack_rows = [v for k, v in per_collection.items() if k.startswith("attack:")]
    total = sum(v["texts"] for v in attack_rows)
    return {
        "package": {
            "name": "prompt-armor",
            "version": "0.9.1",
            "licence": "Apache-2.0",
            "file": path.name,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        },  # fmt: skip
        "attacks": total,
        "recall_all_collections": {
            k: round(sum(v[k] for v in attack_rows) / total, 4) for k in ("rules", "classifier", "together")
        },
        "recall_mean_of_collections": {
            k: round(sum(v[f"{k}_share"] for v in attack_rows) / len(attack_rows), 4)
            for k in ("rules", "classifier", "together")
        },
        "per_collection": per_collection,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", required=True, type=Path, help="prompt-armor 0.9.1's wheel")
    parser.add_argument("--label", default="latest", help="the name of this entry")
    args = parser.parse_args()
    import django

    django.setup()
    from common import machine, write_labelled_result

    report = {"machine": machine(), **evaluate(args.wheel)}
    write_labelled_result(RESULTS, args.label, report)
    print(f"{args.label}: {report['attacks']} attacks; recall over all {report['recall_all_collections']}, "
          f"mean of collections {report['recall_mean_of_collections']}")  # fmt: skip
    for name, stats in report["per_collection"].items():
        shares = ", ".join(f"{k} {stats[k + '_share']}" for k in ("rules", "classifier", "together"))
        print(f"  {name}: {stats['texts']} texts, {shares}")


if __name__ == "__main__":
    main()
