"""CPU per recall of each recall mechanism, switched on alone, on the LoCoMo banks ``make eval`` built.

Runs after ``eval_locomo.py`` (it reuses that run's database and banks). For every mode of
``eval_modes.MODES`` named on the command line it recalls each question of the chosen
conversations at budget 1,024 in process and reports Python CPU (this process, channel
threads included) and PostgreSQL CPU per recall, as ``bench_cpu.py`` measures them. Run it
under ``mh-heavy``: it times things.
"""

from __future__ import annotations

import argparse

from bench_cpu import measure
from common import machine, setup_django, write_result
from eval_locomo import EVAL_DIR, load_conversation
from eval_modes import MODES


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default="full,full+graph-all-kinds,full+hop,full+feedback,full+feedback+hop")
    parser.add_argument("--conversations", default="41")
    parser.add_argument("--database", default="memoryhub_eval")
    parser.add_argument("--rounds", type=int, default=2, help="measured passes over the questions, modes interleaved")
    parser.add_argument("--output", default="recall-mechanisms-cpu")
    args = parser.parse_args()
    setup_django(args.database)
    from django.conf import settings
    from django.test import override_settings

    from banks.models import Bank
    from memoryhub.embeddings import warm_up

    warm_up()
    results: dict = {}
    for stem in args.conversations.split(","):
        bank = Bank.objects.get(slug=f"locomo-{stem}")
        _, questions = load_conversation(EVAL_DIR / f"{stem}.json")
        queries = [q["question"] for q in questions]
        for _ in range(args.rounds):  # interleaved, so drift in the machine's load spreads over every mode
            for mode in args.modes.split(","):
                with override_settings(MEMORYHUB={**settings.MEMORYHUB, **MODES[mode].get("settings", {})}):
                    results.setdefault(stem, {}).setdefault(mode, []).append(measure(bank, queries, profile=0))
    summary = {
        stem: {
            mode: {
                key: round(min(run[key] for run in runs), 2)
                for key in ("python_cpu_ms", "postgres_cpu_ms", "total_cpu_ms")
            }
            | {"wall_p50_ms": min(run["wall"]["p50_ms"] for run in runs), "recalls": runs[0]["recalls"]}
            for mode, runs in by_mode.items()
        }
        for stem, by_mode in results.items()
    }
    path = write_result(args.output, {"benchmark": "recall-mechanisms-cpu", "machine": machine(), "budget": 1024,
                                      "statistic": "best of the rounds", "results": summary})  # fmt: skip
    for stem, by_mode in summary.items():
        for mode, m in by_mode.items():
            print(f"{stem} {mode:26s} python {m['python_cpu_ms']:7.2f}  postgres {m['postgres_cpu_ms']:7.2f}  "
                  f"total {m['total_cpu_ms']:7.2f}  wall p50 {m['wall_p50_ms']}")  # fmt: skip
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
