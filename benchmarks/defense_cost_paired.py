"""Memory Defense CPU cost per 1 KB item: this checkout against a git revision, measured paired.

``eval_defense`` times one pass over its items, and on this machine that figure moves by a third from one
hour to the next with the machine's speed. A change to cost is measured here instead: the revision's
``beliefs/defense`` is exported and loaded beside this checkout's under another name, and each item of
``eval_defense.cost_items`` is timed with both versions in turn, keeping the least of ``--rounds`` runs per
item and version (CPU time of this thread). Both versions see the same moments of the machine, so their
ratio holds when the absolute figures drift. Writes ``results/defense-cost-paired.json``.

    .venv/bin/python benchmarks/defense_cost_paired.py --base e35f2d4
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
BASE_PACKAGE = "base_defense"


def export_base(revision: str, into: Path) -> None:
    """``beliefs/defense`` at ``revision``, as the package ``base_defense`` under ``into``."""
    archive = subprocess.run(["git", "archive", revision, "beliefs/defense"], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    package = into / BASE_PACKAGE
    (into / "beliefs" / "defense").rename(package)
    for module in package.rglob("*.py"):
        module.write_text(module.read_text().replace("beliefs.defense", BASE_PACKAGE))


def _summary(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "mean_ms": round(statistics.mean(values) * 1000, 3),
        "p50_ms": round(statistics.median(values) * 1000, 3),
        "p95_ms": round(ordered[int(0.95 * len(ordered))] * 1000, 3),
    }


def measure(items: list[str], versions: dict, rounds: int) -> dict:
    """The least CPU time of ``rounds`` runs per item, for each version's scan, injection markers and both (the
    versions take turns going first)."""
    best = {name: [[float("inf")] * 3 for _ in items] for name in versions}
    names = list(versions)
    for round_number in range(rounds):
        for i, text in enumerate(items):
            # The version run second on an item finds the machine's caches warm with it (about 4% less time, an A/A
            # comparison showed): each goes first on every other item and round.
            for name in names if (round_number + i) % 2 == 0 else names[::-1]:
                scan, assess = versions[name]
                start = time.thread_time()
                scan(text)
                middle = time.thread_time()
                assess(text)
                end = time.thread_time()
                row = best[name][i]
                row[0], row[1], row[2] = (
                    min(row[0], middle - start),
                    min(row[1], end - middle),
                    min(row[2], end - start),
                )
    out = {
        name: {part: _summary([row[k] for row in rows]) for k, part in enumerate(("scan", "injection", "total"))}
        for name, rows in best.items()
    }
    out["ratio"] = {
        part: {stat: round(out["this"][part][stat] / out["base"][part][stat], 3) for stat in ("mean_ms", "p95_ms")}
        for part in ("scan", "injection", "total")
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the git revision to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    import django

    django.setup()
    from common import machine, write_result
    from eval_defense import cost_items

    from beliefs.defense.injection import injection_assessment
    from beliefs.defense.scanner import scan

    with tempfile.TemporaryDirectory() as temporary:
        export_base(args.base, Path(temporary))
        sys.path.insert(0, temporary)
        base_scan = importlib.import_module(f"{BASE_PACKAGE}.scanner").scan
        base_assess = importlib.import_module(f"{BASE_PACKAGE}.injection").injection_assessment
        versions = {"this": (scan, injection_assessment), "base": (base_scan, base_assess)}
        mixes = cost_items()
        for items in mixes.values():  # (warm both: compiled patterns, lazily loaded phone metadata)
            for text in items[:40]:
                for first, second in versions.values():
                    first(text), second(text)
        result = {name: measure(items, versions, args.rounds) for name, items in mixes.items()}
    revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    base = subprocess.run(["git", "rev-parse", "--short", args.base], cwd=ROOT, capture_output=True, text=True)
    path = write_result(
        "defense-cost-paired",
        {
            "machine": machine(),
            "this": revision.stdout.strip(),
            "base": base.stdout.strip(),
            "rounds": args.rounds,
            "mixes": result,
        },
    )
    for name, parts in result.items():
        ratio = parts["ratio"]["total"]
        print(
            f"{name}: total p95 {parts['this']['total']['p95_ms']} ms against {parts['base']['total']['p95_ms']} ms "
            f"(ratio {ratio['p95_ms']}; mean ratio {ratio['mean_ms']})"
        )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
