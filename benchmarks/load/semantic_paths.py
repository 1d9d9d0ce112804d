"""How the semantic channel's ways of reading a bank compare on the load run's banks: time and agreement with exact.

Reads the banks ``make load`` grew (run it first; about 17,000-26,000 near-copy episodes each, five banks in one
table) and, for the same load-run questions, times each way of collecting a bank's 50 nearest episodes in
PostgreSQL and counts how many of the exact top 10 and top 50 it returns:

- ``exact``: every row of the bank, sorted (what banks up to ``EXACT_SEARCH_BELOW`` do);
- ``shared walk``: the 800-deep HNSW walk through the graph all banks share (iterative scans);
- ``own lists + short walk``: the bank's own IVFFlat lists merged with a 200-deep walk (banks from
  ``VECTOR_INDEX_WALK_FROM``);
- ``own lists, N+ probes``: the bank's own lists alone, as banks from ``VECTOR_INDEX_MIN_EPISODES`` read them,
  with ``VECTOR_INDEX_MIN_PROBES`` at N (20 by default; a query reads √lists when that is more).

Builds the banks' own indexes first when they have none (``vector_indexes_refresh``). Times are the client's
wall time per query over the Unix socket: PostgreSQL's work plus a round trip.

    .venv/bin/python benchmarks/load/semantic_paths.py [--queries 60] [--output semantic-paths]

Results: ``benchmarks/results/semantic-paths.json``. ``semantic-paths-5000.json`` is the same on five freshly seeded
banks of 5,000 episodes (``run_load.seed`` with 5,000, ``MEMORYHUB_VECTOR_INDEX_MIN_EPISODES=4000``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from agent_calls import recall_call  # noqa: E402
from common import machine, write_result  # noqa: E402
from stack import Stack  # noqa: E402

LIMIT = 50  # the channel's candidates (RECALL_CANDIDATES_PER_CHANNEL)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--banks", type=int, default=5)
    parser.add_argument("--output", default="semantic-paths")
    args = parser.parse_args()

    stack = Stack("load", database="memoryhub_load")
    stack.use_in_this_process()
    from common import setup_django

    setup_django(stack.database, fresh=False)
    import numpy as np
    from django.conf import settings

    from banks.models import Bank
    from beliefs.channels import vectors
    from beliefs.channels.filters import episode_scope
    from beliefs.services.vector_indexes import _bank_episodes, vector_indexes_refresh
    from memoryhub.embeddings import embed_query

    built = vector_indexes_refresh()
    banks = [Bank.objects.get(slug=f"agents-{n}", tenant__slug=f"load-{n}") for n in range(args.banks)]
    if any(bank.vector_index_lists is None for bank in banks):
        raise SystemExit("every load bank needs an index of its own: run `make load` (banks of 10,000 or more) first")
    rng = random.Random(3)
    questions = []
    for _ in range(args.queries):
        bank = rng.choice(banks)
        question = recall_call(rng, bank.slug)[1]["query"]
        questions.append((bank, vectors.query_text(embed_query(question))))

    def read(walk: bool, probes: int | None = None):
        def run(bank, vector):
            saved = settings.MEMORYHUB["VECTOR_INDEX_MIN_PROBES"]
            if probes is not None:
                settings.MEMORYHUB["VECTOR_INDEX_MIN_PROBES"] = probes
            try:
                return vectors.nearest_episodes(
                    episode_scope(bank),
                    vector=vector,
                    limit=LIMIT,
                    exact=False,
                    own_index_lists=bank.vector_index_lists,
                    own_index_walk=walk,
                )
            finally:
                settings.MEMORYHUB["VECTOR_INDEX_MIN_PROBES"] = saved

        return run

    paths = {
        "exact": lambda bank, vector: vectors.nearest_episodes(
            episode_scope(bank), vector=vector, limit=LIMIT, exact=True, own_index_lists=None
        ),
        "shared walk": lambda bank, vector: vectors.nearest_episodes(
            episode_scope(bank), vector=vector, limit=LIMIT, exact=False, own_index_lists=None
        ),
        "own lists + short walk": read(walk=True),
        **{f"own lists, {p}+ probes": read(walk=False, probes=p) for p in (5, 10, 20, 40)},
    }
    truth: dict[int, list[int]] = {}
    results = {}
    for warm in (True, False):  # the first pass warms the caches, the second is measured
        for name, path in paths.items():
            times, top10, top50 = [], [], []
            for i, (bank, vector) in enumerate(questions):
                started = time.perf_counter()
                ids = [pk for pk, _ in path(bank, vector)]
                times.append((time.perf_counter() - started) * 1000)
                truth.setdefault(i, ids)  # "exact" runs first
                top10.append(len(set(ids[:10]) & set(truth[i][:10])) / 10)
                top50.append(len(set(ids) & set(truth[i])) / max(1, len(truth[i])))
            if not warm:
                results[name] = {
                    "p50_ms": round(float(np.percentile(times, 50)), 2),
                    "p95_ms": round(float(np.percentile(times, 95)), 2),
                    "top10_agreement": round(float(np.mean(top10)), 3),
                    "top50_agreement": round(float(np.mean(top50)), 3),
                }
                print(f"{name:24s} {results[name]}", flush=True)
    write_result(
        args.output,
        {
            "machine": machine(),
            "queries": args.queries,
            "limit": LIMIT,
            "banks": {bank.slug: _bank_episodes(bank) for bank in banks},
            "own_index_lists": {bank.slug: bank.vector_index_lists for bank in banks},
            "indexes_refreshed": built,
            "paths": results,
        },
    )


if __name__ == "__main__":
    main()
