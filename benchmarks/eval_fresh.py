"""Memory Defense on the second fresh draw (``corpora/fresh_*.json``, built by ``corpora/build_fresh.py``).

``--record NAME`` writes ``results/defense-fresh2-NAME.json`` once and refuses to overwrite it: that is how
a first contact is kept untouched. The strings missed and the false alarms are left out unless ``--strings``
asks for them (a measurement taken without looking at what was missed, so that later work cannot be fitted to
them).
``make eval-defense`` reports the draw on every run as well (``fresh`` in ``defense.json``); those later
figures are after the first contact and say so.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")

STRING_KEYS = ("misses", "false_alarm_strings")


def fresh_report(*, strings: bool = True) -> dict:
    from eval_holdout import (
        FRESH_INJECTIONS,
        FRESH_SECRETS,
        corpus_digests,
        evaluate_injections,
        evaluate_secrets,
        load,
        pinned_digests,
    )

    from beliefs.defense.injection import injection_reasons
    from beliefs.defense.scanner import scan

    report = {
        "secrets": evaluate_secrets(load(FRESH_SECRETS), lambda t: [(f.start, f.end, f.kind) for f in scan(t)]),
        "injection": evaluate_injections(load(FRESH_INJECTIONS), injection_reasons),
        "corpus_sha256": corpus_digests((FRESH_SECRETS, FRESH_INJECTIONS)),
    }
    report["corpus_unchanged"] = report["corpus_sha256"] == pinned_digests("fresh.sha256")
    if not strings:
        for part in ("secrets", "injection"):
            for key in STRING_KEYS:
                report[part].pop(key, None)
    return report


def summary(report: dict) -> str:
    secrets, injection = report["secrets"], report["injection"]
    lines = [
        f"fresh draw: secrets {secrets['values']} values, recall {secrets['recall']}, "
        f"precision {secrets['precision']}, negatives redacted {secrets['negatives_redacted']}",
        "  " + ", ".join(f"{f} {v['caught']}/{v['values']}" for f, v in secrets["per_family"].items()),
        "  false alarms by group: "
        + ", ".join(f"{g} {n}" for g, n in secrets["false_alarms_by_group"].items() if n)
        + "; by kind: "
        + "; ".join(
            f"{g}: " + ", ".join(f"{k} {n}" for k, n in kinds.items())
            for g, kinds in secrets.get("false_alarms_by_kind", {}).items()
        ),
        f"fresh draw: injection recall {injection['recall']}, false-positive rate {injection['false_positive_rate']}",
        "  " + ", ".join(f"{f} {v['flagged']}/{v['samples']}" for f, v in injection["per_family"].items()),
        "  benign flagged: "
        + ", ".join(f"{f} {v['flagged']}/{v['samples']}" for f, v in injection["benign_per_kind"].items()),
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", help="write results/defense-fresh2-RECORD.json (never overwritten)")
    parser.add_argument("--strings", action="store_true", help="include the strings missed and the false alarms")
    parser.add_argument("--note", default="", help="what state of the detectors this measures")
    args = parser.parse_args()
    import django

    django.setup()
    from common import machine

    report = fresh_report(strings=args.strings)
    print(summary(report))
    if args.record:
        path = HERE / "results" / f"defense-fresh2-{args.record}.json"
        if path.exists():
            raise SystemExit(f"{path} exists: a recorded contact is never overwritten")
        path.write_text(json.dumps({"machine": machine(), "note": args.note, **report}, indent=2) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
