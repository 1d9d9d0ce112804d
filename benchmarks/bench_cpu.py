"""CPU per recall: Python (this process, channel threads included) and PostgreSQL (every server process).

Wall time hides where the work goes when two cores serve many requests: a recall that
waits on PostgreSQL costs the server's CPU, a recall that spends its time in Python costs
the web worker's. This benchmark measures both per recall, in process, on banks of real
sentences (``real_corpus``: LoCoMo turns, operations text, documentation prose) of
``--sizes`` episodes, loaded the way ``bench_scale.py`` loads them, with LoCoMo and
operations questions as queries (budget 1024, default options):

- Python CPU: ``time.process_time()`` of this process over the measured recalls (all
  threads: the query embedding, the channel threads' drivers, fusion, packing);
- query embedding alone, the same way (its share of the Python figure);
- PostgreSQL CPU: user + system time (``/proc``) of the server processes serving the
  benchmark's database (its sessions and the channel threads'); other databases on the
  same server are not counted. A backend that exits during the run is not counted either,
  so the sessions opened per recall are reported beside it (0 with persistent connections);
- server sessions opened and transactions per recall (``pg_stat_database``).

Nothing else may use the server while it runs (``mh-heavy``). Results:
``benchmarks/results/cpu.json`` (or ``--output``), one entry per ``--size`` and ``--label`` (``before``/``after``
when the same bank is measured under two versions of the code). ``--profile N`` prints the N hottest
Python functions of the measured recalls (cProfile, all threads' calls made in this one).
"""

from __future__ import annotations

import os

# One BLAS thread, set before numpy loads (as the Makefile and memoryhub/__init__.py do): idle OpenBLAS threads
# spin, and doubled the Python CPU this measures.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from common import RESULTS, machine, setup_django, summary_ms  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def _proc_times(pid: int) -> tuple[int, int, int]:
    """(ppid, utime + stime, cutime + cstime) in clock ticks."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def backend_pids() -> list[int]:
    """Server processes serving this database: this process's sessions and the channel threads' (no one else's:
    other databases on the same server, an evaluation running beside it, are not counted)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        return [row[0] for row in cursor.fetchall()]


def postgres_cpu_ms(pids) -> dict[int, int]:
    """CPU clock ticks used so far by each of ``pids`` (gone ones left out)."""
    times = {}
    for pid in pids:
        try:
            times[pid] = _proc_times(pid)[1]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
    return times


def _used_ms(before: dict[int, int], after: dict[int, int]) -> float:
    return sum(ticks - before.get(pid, 0) for pid, ticks in after.items()) * 1000 / TICKS


def server_counters() -> tuple[int, int]:
    """(sessions opened, transactions) in this database so far."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT sessions, xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"
        )
        return cursor.fetchone()


def build(size: int, texts: list[str], vectors) -> object:
    """A bank of ``size`` real sentences with its indexes and statistics (as ``bench_scale.py`` builds them)."""
    import numpy as np
    from bench_scale import build_bank_index, build_indexes, fill_statistics, load_bank
    from django.db import connection

    from banks.services.banks import bank_create, tenant_create
    from memoryhub.tokens import count_tokens

    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX IF EXISTS beliefs_episode_embedding_hnsw")
        cursor.execute("DROP INDEX IF EXISTS beliefs_episode_search_gin")
    tenant = tenant_create(slug="cpu", name="CPU")
    bank = bank_create(tenant=tenant, slug=f"real-{size}")
    rows = [{"content": t, "source": "text", "subject": "", "tokens": count_tokens(t)} for t in texts[:size]]
    load_bank(bank, size, rows, vectors[:size], np.random.default_rng(3), sequential=True)
    build_indexes(bank)
    fill_statistics(bank, rows)
    build_bank_index(bank)
    return bank


def measure(bank, queries: list[str], *, profile: int) -> dict:
    from beliefs.services.recall import recall
    from memoryhub.embeddings import embed_query, query_cache_clear

    for query in queries[:20]:  # warm: connections, caches, the traced encoder
        recall(bank=bank, query=query, budget_tokens=1024)
    embed_cpu = []
    for query in queries:
        query_cache_clear()  # the model's cost, not the cache's
        started = time.process_time()
        embed_query(query)
        embed_cpu.append(time.process_time() - started)
    query_cache_clear()  # every measured recall embeds its question (the 200 questions are distinct)
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
    sessions_before, transactions_before = server_counters()
    wall = []
    pg_started, cpu_started = postgres_cpu_ms(backend_pids()), time.process_time()
    for query in queries:
        wall_started = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        recall(bank=bank, query=query, budget_tokens=1024)
        if profiler is not None:
            profiler.disable()
        wall.append(time.perf_counter() - wall_started)
    python_total = time.process_time() - cpu_started
    postgres_total = _used_ms(pg_started, postgres_cpu_ms(backend_pids()))
    sessions_after, transactions_after = server_counters()
    if profiler is not None:
        import pstats

        pstats.Stats(profiler).sort_stats("tottime").print_stats(profile)
    n = len(queries)
    python_ms = python_total * 1000 / n
    postgres_ms = postgres_total / n
    return {
        "recalls": n,
        "python_cpu_ms": round(python_ms, 2),
        "of_which_query_embedding_ms": round(statistics.fmean(embed_cpu) * 1000, 2),
        "postgres_cpu_ms": round(postgres_ms, 2),
        "total_cpu_ms": round(python_ms + postgres_ms, 2),
        "wall": summary_ms(wall),
        "server_sessions_opened_per_recall": round((sessions_after - sessions_before) / n, 3),
        "server_transactions_per_recall": round((transactions_after - transactions_before - 2) / n, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--output", default="cpu")
    parser.add_argument("--reuse", action="store_true", help="keep a bank an earlier run built")
    parser.add_argument("--profile", type=int, default=0)
    parser.add_argument("--label", default="current", help="what this run measures: its figures are kept under it")
    parser.add_argument("--results", default=str(RESULTS), help="directory of the result file (another checkout's)")
    args = parser.parse_args()
    import real_corpus
    from bench_scale import real_queries

    database = f"memoryhub_cpu_{args.size}"
    setup_django(database, fresh=not args.reuse)
    from django.db import connection

    from banks.models import Bank
    from memoryhub.embeddings import warm_up

    warm_up()
    bank = Bank.objects.filter(slug=f"real-{args.size}").first()
    if bank is None or bank.episodes.count() != args.size:
        if bank is not None:
            raise SystemExit(f"{database} holds an incomplete bank: run without --reuse")
        texts, vectors = real_corpus.load(real_corpus_size(args.size))
        bank = build(args.size, texts, vectors)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE beliefs_episode")
    measured = measure(bank, real_queries(args.queries), profile=args.profile)
    print(json.dumps(measured), flush=True)
    path = Path(args.results) / f"{args.output}.json"
    outcome = json.loads(path.read_text()) if path.exists() else {"benchmark": "cpu-per-recall", "sizes": {}}
    by_label = outcome["sizes"].setdefault(str(args.size), {})
    by_label[args.label] = {"machine": machine(), "budget_tokens": 1024, **measured}
    path.write_text(json.dumps(outcome, indent=2) + "\n")
    print(f"wrote {path}")


def real_corpus_size(size: int) -> int:
    """The cached corpus to draw from: the 100,000-sentence one serves every bank up to that size."""
    return max(size, 100_000)


if __name__ == "__main__":
    main()
