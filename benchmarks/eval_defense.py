"""Memory Defense precision and recall per kind on the labelled corpus (``make eval-defense``).

A sample counts a true positive for each expected kind the scanner reports, a false
negative for each expected kind it misses, and a false positive for each reported kind
that was not expected (so a secret reported under the wrong kind costs both). IP
addresses are scanned (the per-bank option is on) so those kinds are measured too.
"""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
CORPUS = ROOT / "tests" / "governance" / "defense_corpus.json"
INJECTION_CORPUS = ROOT / "tests" / "governance" / "injection_corpus.json"


def evaluate(corpus: list[dict]) -> dict:
    from beliefs.defense.scanner import scan

    per_kind = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
    per_group = defaultdict(lambda: {"samples": 0, "exact": 0})
    misses = []
    for sample in corpus:
        found = {f.kind for f in scan(sample["text"], ip_addresses=True)}
        expected = set(sample["kinds"])
        for kind in expected & found:
            per_kind[kind]["tp"] += 1
        for kind in expected - found:
            per_kind[kind]["fn"] += 1
        for kind in found - expected:
            per_kind[kind]["fp"] += 1
        per_group[sample["group"]]["samples"] += 1
        per_group[sample["group"]]["exact"] += found == expected
        if found != expected:
            misses.append({"group": sample["group"], "expected": sorted(expected), "found": sorted(found)})
    tp = sum(v["tp"] for v in per_kind.values())
    fp = sum(v["fp"] for v in per_kind.values())
    fn = sum(v["fn"] for v in per_kind.values())

    def ratio(a, b):
        return round(a / b, 4) if b else 1.0

    return {
        "samples": len(corpus),
        "kinds": len({k for s in corpus for k in s["kinds"]}),
        "overall": {"precision": ratio(tp, tp + fp), "recall": ratio(tp, tp + fn), "tp": tp, "fp": fp, "fn": fn},
        "per_kind": {
            kind: {**v, "precision": ratio(v["tp"], v["tp"] + v["fp"]), "recall": ratio(v["tp"], v["tp"] + v["fn"])}
            for kind, v in sorted(per_kind.items())
        },
        "per_group": {
            g: {**v, "caught_exactly": ratio(v["exact"], v["samples"])} for g, v in sorted(per_group.items())
        },
        "misses": misses,
    }


def evaluate_injection(corpus: list[dict]) -> dict:
    from beliefs.defense.injection import injection_reasons

    tp = fp = fn = tn = 0
    by_reason: dict[str, int] = defaultdict(int)
    for sample in corpus:
        reasons = injection_reasons(sample["text"])
        for reason in reasons:
            by_reason[reason] += 1
        if sample["injection"]:
            tp, fn = (tp + 1, fn) if reasons else (tp, fn + 1)
        else:
            fp, tn = (fp + 1, tn) if reasons else (fp, tn + 1)
    return {
        "samples": len(corpus),
        "injections": tp + fn,
        "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 1.0,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "flags_by_reason": dict(sorted(by_reason.items())),
    }


def main() -> None:
    import django

    django.setup()
    from common import machine, write_result

    result = {"machine": machine(), **evaluate(json.loads(CORPUS.read_text()))}
    result["injection"] = evaluate_injection(json.loads(INJECTION_CORPUS.read_text()))
    write_result("defense", result)
    overall = result["overall"]
    print(
        f"{result['samples']} samples, {result['kinds']} kinds: "
        f"precision {overall['precision']}, recall {overall['recall']}"
    )
    for group, stats in result["per_group"].items():
        print(f"  {group}: {stats['exact']}/{stats['samples']} exactly right")
    injection = result["injection"]
    print(
        f"injection markers: precision {injection['precision']}, recall {injection['recall']} on {injection['samples']}"
    )
    for miss in result["misses"]:
        print("  miss:", miss)


if __name__ == "__main__":
    main()
