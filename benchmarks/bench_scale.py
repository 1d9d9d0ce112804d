"""Scale benchmark: recall latency and index quality at 100,000 and 1,000,000 episodes.

Bulk loading skips the retain API (it would take hours on 2 cores): 5,000 distinct
synthetic texts are embedded with the real model, and every loaded episode reuses one
of those texts with its vector perturbed by small Gaussian noise (then re-normalised),
so vectors are distinct but live where real embeddings live. Rows arrive by COPY, then
the HNSW and GIN indexes are built (timed), entity links and term statistics are filled
the way retain fills them. Queries use the real model end to end through ``recall``.

A 50-episode bank inside the big table checks that filtered HNSW scans (iterative
scans) still return the small bank's true top 10.
Run with ``make bench-scale`` (one process per size, ``--size N``); results go to
``benchmarks/results/scale-<size>.json``. ``--reuse`` measures the bank an earlier run built
(its build timings are carried over) after a change to recall, without an hour of loading.
Full recall is timed in a pass of its own, before the exact scans (each reads the whole table).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from datetime import UTC, datetime, timedelta

import numpy as np
from common import (
    RESULTS,
    Timer,
    machine,
    rss_mb,
    setup_django,
    summary_ms,
    synthetic_episode,
    synthetic_query,
    write_result,
)

DISTINCT_TEXTS = 5000
NOISE = 0.015
# Recall's spans reported at p95: the channels, then the rank stage and the reads inside it.
RECALL_SPANS = (
    "embed",
    "semantic",
    "keyword",
    "graph",
    "temporal",
    "rank_and_pack",
    "pool",
    "feedback",
    "hop",
    "fetch",
)
REAL_SENTENCES = 100_000  # the offline corpus (benchmarks/real_corpus.py); larger banks add noisy copies


def load_bank(
    bank, size: int, texts: list[dict], vectors: np.ndarray, rng: np.random.Generator, *, sequential: bool = False
) -> dict:
    """COPY ``size`` episodes into ``bank``; returns timings.

    ``sequential``: row i reuses text i (each real sentence once, exactly its own vector) until the texts run out,
    then noisy copies; otherwise every row is a noisy copy of a random text."""
    from django.db import connection

    start = datetime(2020, 1, 1, tzinfo=UTC)
    timings = {}
    vector_format = "[" + ",".join(["%.6f"] * vectors.shape[1]) + "]"
    columns = (
        "tenant_id, bank_id, content, occurred_at, recorded_at, source, subject, thread,"
        " provenance, metadata, content_hash, dedupe_key, token_count, embedding, mentions_time, injection_flags,"
        " injection_spans"
    )
    with Timer() as copy_timer, connection.cursor() as cursor:
        # COPY cannot write a table under row-level security: stage the rows, then one INSERT … SELECT.
        cursor.execute("DROP TABLE IF EXISTS episode_load")
        cursor.execute(f"CREATE TEMP TABLE episode_load AS SELECT {columns} FROM beliefs_episode WITH NO DATA")
        raw = cursor.connection
        with (
            raw.cursor() as pg,
            pg.copy(f"COPY episode_load ({columns}) FROM STDIN") as copy,
        ):
            for offset in range(0, size, 10000):
                count = min(10000, size - offset)
                picks = rng.integers(0, len(texts), count)
                noise = rng.normal(0, NOISE, (count, vectors.shape[1])).astype(np.float32)
                if sequential:
                    indexes = np.arange(offset, offset + count)
                    picks = np.where(indexes < len(texts), indexes, picks)
                    noise[indexes < len(texts)] = 0
                noisy = vectors[picks] + noise
                noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
                for row, (pick, vector) in enumerate(zip(picks, noisy, strict=True)):
                    index = offset + row
                    text = texts[pick]
                    occurred = start + timedelta(minutes=3 * index)
                    copy.write_row(
                        (
                            bank.tenant_id,
                            bank.pk,
                            text["content"],
                            occurred,
                            occurred,
                            text["source"],
                            text["subject"],
                            "",
                            "imported",
                            "{}",
                            hashlib.sha256(text["content"].encode()).hexdigest(),
                            f"load:{index}",
                            text["tokens"],
                            vector_format % tuple(vector.tolist()),
                            False,
                            "[]",
                            "[]",
                        )
                    )
        cursor.execute(f"INSERT INTO beliefs_episode ({columns}) SELECT {columns} FROM episode_load")
        cursor.execute("DROP TABLE episode_load")
        # Waiting for extraction, as retained episodes are (a seed that extracts its banks reads them from here).
        cursor.execute(
            "INSERT INTO beliefs_episodeextraction (episode_id, tenant_id, bank_id, recorded_at)"
            " SELECT e.id, e.tenant_id, e.bank_id, e.recorded_at FROM beliefs_episode e"
            " WHERE e.bank_id = %s ON CONFLICT DO NOTHING",
            [bank.pk],
        )
    timings["copy_s"] = round(copy_timer.seconds, 1)
    return timings


def build_indexes(bank) -> dict:
    from django.db import connection

    from beliefs.models import Episode

    # The graph the migrations define, with its options (what every retain inserts with).
    graph = next(index for index in Episode._meta.indexes if index.name == "beliefs_episode_embedding_hnsw")
    timings = {}
    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '6GB'")
        cursor.execute("SET max_parallel_maintenance_workers = 1")
        with Timer() as t:
            cursor.execute(
                "CREATE INDEX beliefs_episode_embedding_hnsw ON beliefs_episode"
                " USING hnsw (embedding vector_cosine_ops)"
                f" WITH (m = {graph.m}, ef_construction = {graph.ef_construction})"
            )
        timings["hnsw_build_s"] = round(t.seconds, 1)
        with Timer() as t:
            cursor.execute("CREATE INDEX beliefs_episode_search_gin ON beliefs_episode USING gin (search_vector)")
        timings["gin_build_s"] = round(t.seconds, 1)
        with Timer() as t:
            cursor.execute("VACUUM ANALYZE beliefs_episode")
        timings["vacuum_analyze_s"] = round(t.seconds, 1)
    return timings


def build_bank_index(bank) -> dict:
    """The bank's own IVFFlat index, as the hourly sweep (or ``manage.py vector_indexes``) builds it after an import."""
    from beliefs.services.vector_indexes import bank_vector_index_refresh

    with Timer() as t:
        action = bank_vector_index_refresh(bank=bank)
    bank.refresh_from_db()
    return {
        "bank_index": action,
        "bank_index_lists": bank.vector_index_lists,
        "bank_index_build_s": round(t.seconds, 1),
    }


def fill_statistics(bank, texts: list[dict]) -> dict:
    """Term statistics and entity links, as retain would have written them."""
    from django.db import connection

    from beliefs.engine.entities import extract_entities

    with Timer() as t, connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO beliefs_bankterm (tenant_id, bank_id, lexeme, doc_count) SELECT %s, %s, word, ndoc"
            " FROM ts_stat(%s) WHERE length(word) <= 255",
            [bank.tenant_id, bank.pk, f"SELECT search_vector FROM beliefs_episode WHERE bank_id = {int(bank.pk)}"],
        )
        cursor.execute(
            "INSERT INTO beliefs_banktextstats (tenant_id, bank_id, doc_count, lexeme_total)"
            " SELECT %s, %s, count(*), sum(length(search_vector)) FROM beliefs_episode WHERE bank_id = %s",
            [bank.tenant_id, bank.pk, bank.pk],
        )
        by_content = {}
        for text in texts:
            by_content[text["content"]] = extract_entities(text["content"])
        keys = {}
        for found in by_content.values():
            for entity in found:
                keys.setdefault(entity.key, entity)
        cursor.execute(
            "CREATE TEMP TABLE content_entity (content text, key text) ON COMMIT DROP"
            if connection.in_atomic_block
            else "CREATE TEMP TABLE content_entity (content text, key text)"
        )
        raw = cursor.connection
        with raw.cursor() as pg, pg.copy("COPY content_entity (content, key) FROM STDIN") as copy:
            for content, found in by_content.items():
                for entity in found:
                    copy.write_row((content, entity.key))
        cursor.execute(
            "INSERT INTO beliefs_entity (tenant_id, bank_id, key, name, kind, aliases, episode_count, created_at)"
            " SELECT %s, %s, k, n, kd, '[]'::jsonb, 0, now()"
            " FROM unnest(%s::text[], %s::text[], %s::text[]) t(k, n, kd)",
            [bank.tenant_id, bank.pk, list(keys), [e.name for e in keys.values()], [e.kind for e in keys.values()]],
        )
        cursor.execute(
            "INSERT INTO beliefs_episodeentity (tenant_id, bank_id, episode_id, entity_id)"
            " SELECT %s, %s, e.id, n.id FROM beliefs_episode e JOIN content_entity c ON c.content = e.content"
            " JOIN beliefs_entity n ON n.bank_id = %s AND n.key = c.key WHERE e.bank_id = %s",
            [bank.tenant_id, bank.pk, bank.pk, bank.pk],
        )
        cursor.execute(
            "UPDATE beliefs_entity n SET episode_count = s.c FROM (SELECT entity_id, count(*) c"
            " FROM beliefs_episodeentity WHERE bank_id = %s GROUP BY entity_id) s WHERE n.id = s.entity_id",
            [bank.pk],
        )
        cursor.execute("DROP TABLE IF EXISTS content_entity")
        cursor.execute("ANALYZE")
    return {"statistics_s": round(t.seconds, 1)}


def measure(bank, queries: list[str], *, exact_queries: int) -> dict:
    from beliefs.channels import semantic
    from beliefs.services.recall import recall
    from memoryhub.embeddings import embed_query

    for query in queries[:10]:
        recall(bank=bank, query=query, budget_tokens=1024)
    full, semantic_times, exact_times, agreements, distance_agreements, channel_ms = [], [], [], [], [], []
    # Recall is timed in a pass of its own: an exact scan reads the whole table, and one between two recalls
    # would leave each recall a cache that no bank serving recalls has.
    for query in queries:
        with Timer() as t:
            result = recall(bank=bank, query=query, budget_tokens=1024)
        full.append(t.seconds)
        channel_ms.append(result.channel_ms)
    for index, query in enumerate(queries):
        vector = embed_query(query)
        with Timer() as t:
            approx = semantic.search(bank=bank, query_vector=vector, limit=10, exact=False)
        semantic_times.append(t.seconds)
        if index < exact_queries:
            with Timer() as t:
                exact = semantic.search(bank=bank, query_vector=vector, limit=10, exact=True)
            exact_times.append(t.seconds)
            truth = {hit.item_id for hit in exact}
            agreements.append(len(truth & {hit.item_id for hit in approx}) / max(1, len(truth)))
            # Near-copies tie at the 10th distance; an approximate hit as close as the 10th exact one is right.
            tenth = min((hit.score for hit in exact), default=0.0)
            distance_agreements.append(sum(hit.score >= tenth - 1e-6 for hit in approx) / max(1, len(exact)))
    tuning = depth_tuning(bank, queries[:exact_queries])
    slowest = {name: round(float(np.percentile([c.get(name, 0) for c in channel_ms], 95)), 2) for name in RECALL_SPANS}
    return {
        "recall_full_budget_1024": summary_ms(full),
        "semantic_hnsw_top10": summary_ms(semantic_times),
        "semantic_exact_top10": summary_ms(exact_times),
        "hnsw_recall_at_10_vs_exact": round(sum(agreements) / max(1, len(agreements)), 4),
        "hnsw_recall_at_10_by_distance": round(sum(distance_agreements) / max(1, len(distance_agreements)), 4),
        "channel_p95_ms": slowest,
        "tuning": tuning,
    }


# (label, own index?, settings): the shared HNSW graph alone at two depths, and the bank's own index merged with a
# short HNSW walk at three depths and numbers of lists read.
SEARCH_VARIANTS = [
    ("shared HNSW, ef 100, 400 candidates", False, {"HNSW_EF_SEARCH": 100, "HNSW_RERANK_DEPTH": 400}),
    ("shared HNSW, ef 400, 800 candidates", False, {"HNSW_EF_SEARCH": 400, "HNSW_RERANK_DEPTH": 800}),
    ("own index, 100 + 100 candidates, 10+ lists", True, {"VECTOR_INDEX_DEPTH": 100, "VECTOR_INDEX_MIN_PROBES": 10}),
    ("own index, 200 + 200 candidates, 10+ lists", True, {"VECTOR_INDEX_DEPTH": 200, "VECTOR_INDEX_MIN_PROBES": 10}),
    ("own index, 200 + 200 candidates, 20+ lists", True, {"VECTOR_INDEX_DEPTH": 200, "VECTOR_INDEX_MIN_PROBES": 20}),
    ("own index, 400 + 400 candidates, 40+ lists", True, {"VECTOR_INDEX_DEPTH": 400, "VECTOR_INDEX_MIN_PROBES": 40}),
]


def depth_tuning(bank, queries: list[str]) -> list[dict]:
    """Top-10 agreement with exact search and semantic latency of each search variant."""
    from django.conf import settings

    from beliefs.channels import semantic
    from memoryhub.embeddings import embed_query

    vectors = [embed_query(query) for query in queries]
    truths = [
        {hit.item_id for hit in semantic.search(bank=bank, query_vector=v, limit=10, exact=True)} for v in vectors
    ]
    saved, own_lists = dict(settings.MEMORYHUB), bank.vector_index_lists
    rows = []
    try:
        for label, own_index, overrides in SEARCH_VARIANTS:
            if own_index and not own_lists:
                continue
            settings.MEMORYHUB.update(overrides)
            bank.vector_index_lists = own_lists if own_index else None
            times, agreement = [], []
            for vector, truth in zip(vectors, truths, strict=True):
                with Timer() as t:
                    found = semantic.search(bank=bank, query_vector=vector, limit=10, exact=False)
                times.append(t.seconds)
                agreement.append(len(truth & {hit.item_id for hit in found}) / max(1, len(truth)))
            rows.append(
                {
                    "variant": label,
                    "recall_at_10": round(sum(agreement) / len(agreement), 4),
                    **{k: v for k, v in summary_ms(times).items() if k in ("p50_ms", "p95_ms")},
                }
            )
            print(f"  {label}: {rows[-1]}", flush=True)
    finally:
        settings.MEMORYHUB.clear()
        settings.MEMORYHUB.update(saved)
        bank.vector_index_lists = own_lists
    return rows


def run_size(size: int, queries: int, kind: str = "near-copy", *, reuse: bool = False) -> dict:
    """Build a bank of ``size`` episodes (or, with ``reuse``, take the one an earlier run built) and measure it."""
    setup_django(f"memoryhub_scale_{size}" + ("_real" if kind == "real" else ""), fresh=not reuse)
    if reuse:
        from banks.models import Bank

        bank, small_bank = Bank.objects.get(slug="big"), Bank.objects.get(slug="small")
        earlier = json.loads((RESULTS / f"{result_name(size, kind)}.json").read_text())
        timings = {**earlier["timings"], "measured_on_bank_built": earlier["machine"].get("measured_at", "earlier")}
        return measured_bank(bank, small_bank, size, queries, kind, timings)
    bank, small_bank, timings = build_bank(size, kind)
    return measured_bank(bank, small_bank, size, queries, kind, timings)


def result_name(size: int, kind: str) -> str:
    return f"scale-{size}" + ("-real" if kind == "real" else "")


def build_bank(size: int, kind: str):
    """The bank of ``size`` episodes and the 50-episode one beside it, loaded by COPY and indexed; build timings."""
    from django.db import connection

    from banks.services.banks import bank_create, tenant_create
    from memoryhub.embeddings import embed_texts, warm_up
    from memoryhub.tokens import count_tokens

    warm_up()
    with connection.cursor() as cursor:  # bulk load first, index after: the way large imports are done
        cursor.execute("DROP INDEX IF EXISTS beliefs_episode_embedding_hnsw")
        cursor.execute("DROP INDEX IF EXISTS beliefs_episode_search_gin")
    tenant = tenant_create(slug="scale", name="Scale")
    bank = bank_create(tenant=tenant, slug="big")
    rng = random.Random(11)
    start = datetime(2020, 1, 1, tzinfo=UTC)
    with Timer() as embed_timer:
        if kind == "real":
            import real_corpus

            sentences, vectors = real_corpus.load(min(size, REAL_SENTENCES))
            texts = [{"content": t, "source": "text", "subject": ""} for t in sentences]
        else:
            texts = [synthetic_episode(rng, i, start) for i in range(DISTINCT_TEXTS)]
            vectors = embed_texts([t["content"] for t in texts])
    for text in texts:
        text["tokens"] = count_tokens(text["content"])
    np_rng = np.random.default_rng(3)
    timings = {"embed_distinct_texts_s": round(embed_timer.seconds, 1)}
    timings.update(load_bank(bank, size, texts, vectors, np_rng, sequential=kind == "real"))
    small_bank = bank_create(tenant=tenant, slug="small")
    load_bank(small_bank, 50, texts, vectors, np_rng)
    timings.update(build_indexes(bank))
    timings.update(fill_statistics(bank, texts))
    timings.update(build_bank_index(bank))
    return bank, small_bank, timings


def measured_bank(bank, small_bank, size: int, queries: int, kind: str, timings: dict) -> dict:
    from django.db import connection

    from memoryhub.embeddings import warm_up

    warm_up()
    qrng = random.Random(99)
    query_texts = real_queries(queries) if kind == "real" else [synthetic_query(qrng) for _ in range(queries)]
    measured = measure(bank, query_texts, exact_queries=min(100 if kind == "real" else 50, queries))
    small = small_bank_check(small_bank)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_total_relation_size('beliefs_episode'), pg_relation_size('beliefs_episode_embedding_hnsw'),"
            " pg_relation_size('beliefs_episode_search_gin'), pg_database_size(current_database())"
        )
        table, hnsw, gin, database = cursor.fetchone()
    return {
        "episodes": size,
        "vector_kind": kind,
        "vectors": (
            f"{min(size, REAL_SENTENCES):,} real sentences, each embedded once"
            + (f", then noisy copies N(0, {NOISE}) up to {size:,}" if size > REAL_SENTENCES else "")
            + "; queries: LoCoMo questions and operations questions"
            if kind == "real"
            else f"{DISTINCT_TEXTS} real embeddings of synthetic texts, perturbed with N(0, {NOISE}) noise"
        ),
        "timings": timings,
        **measured,
        "small_bank_inside": small,
        "storage_mb": {
            "table_total": round(table / 2**20),
            "hnsw_index": round(hnsw / 2**20),
            "gin_index": round(gin / 2**20),
            "database": round(database / 2**20),
        },
        "process_rss_mb": rss_mb(),
    }


def real_queries(count: int) -> list[str]:
    """LoCoMo's questions (real questions people wrote about a conversation), then operations questions."""
    import real_corpus

    questions = []
    for path in sorted(real_corpus.LOCOMO.glob("*.json")):
        questions += [qa["question"] for qa in json.loads(path.read_text()).get("qa", []) if qa.get("question")]
    rng = random.Random(99)
    rng.shuffle(questions)
    while len(questions) < count:
        questions.append(synthetic_query(rng))
    return questions[:count]


def small_bank_check(bank) -> dict:
    """A 50-episode bank inside the big table: filtered HNSW scans must still find its true top 10."""
    from beliefs.channels import semantic
    from memoryhub.embeddings import embed_query

    agreements = []
    qrng = random.Random(5)
    for _ in range(30):
        vector = embed_query(synthetic_query(qrng))
        approx = semantic.search(bank=bank, query_vector=vector, limit=10, exact=False)
        exact = semantic.search(bank=bank, query_vector=vector, limit=10, exact=True)
        agreements.append(len({h.item_id for h in approx} & {h.item_id for h in exact}) / 10)
    return {"episodes": 50, "hnsw_recall_at_10_vs_exact": round(sum(agreements) / len(agreements), 4)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--vectors", choices=["near-copy", "real"], default="near-copy")
    parser.add_argument("--reuse", action="store_true", help="measure the bank an earlier run built (no rebuild)")
    args = parser.parse_args()
    started = time.time()
    measured = run_size(args.size, args.queries, args.vectors, reuse=args.reuse)
    outcome = {"benchmark": "scale", "machine": machine(), **measured}
    outcome["wall_s"] = round(time.time() - started, 1)
    path = write_result(result_name(args.size, args.vectors), outcome)
    print(json.dumps(outcome, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
