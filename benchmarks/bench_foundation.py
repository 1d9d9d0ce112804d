"""Foundation benchmark: retain throughput and recall latency on a 10,000-episode bank.

Retain goes through the HTTP API in-process (validation, embedding, one transaction per
batch of 100). Recall latency is measured for the full recall service (query embedding,
both channels, fusion, packing) and for the semantic channel alone, beside an exact
sequential scan over the same vectors in the same run, with HNSW recall@10 agreement.
Run with ``make bench``; results go to ``benchmarks/results/foundation.json``.
"""

from __future__ import annotations

import argparse
import random
from datetime import UTC, datetime

from common import (
    Timer,
    machine,
    rss_mb,
    setup_django,
    summary_ms,
    synthetic_episode,
    synthetic_query,
    write_result,
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()

    setup_django("memoryhub_bench", fresh=True)
    from django.db import connection
    from rest_framework.test import APIClient

    from banks.services.api_keys import api_key_issue
    from banks.services.banks import bank_create, tenant_create
    from beliefs.channels import semantic
    from beliefs.services.recall import recall
    from memoryhub.embeddings import embed_query, warm_up

    warm_up()
    tenant = tenant_create(slug="bench", name="Benchmark")
    bank = bank_create(tenant=tenant, slug="foundation")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_issue(tenant=tenant, name='bench').raw_key}")

    rng = random.Random(42)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    episodes = [synthetic_episode(rng, i, start) for i in range(args.episodes)]
    batch_times = []
    with Timer() as total:
        for offset in range(0, len(episodes), args.batch):
            with Timer() as one:
                response = client.post(
                    f"/api/v1/banks/{bank.slug}/retain",
                    {"items": episodes[offset : offset + args.batch]},
                    format="json",
                )
            assert response.status_code in (200, 201), response.content[:300]
            batch_times.append(one.seconds)
    stored = bank.episodes.count()
    retain_rate = stored / total.seconds
    print(f"retain: {stored} episodes in {total.seconds:.1f}s = {retain_rate:.1f} episodes/s")

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE beliefs_episode")
    queries = [synthetic_query(rng) for _ in range(args.queries)]
    for query in queries[:20]:
        recall(bank=bank, query=query, budget_tokens=1024)

    recall_times, semantic_times, exact_times, agreements = [], [], [], []
    for query in queries:
        with Timer() as t:
            recall(bank=bank, query=query, budget_tokens=1024)
        recall_times.append(t.seconds)
        vector = embed_query(query)
        with Timer() as t:
            approx = semantic.search(bank=bank, query_vector=vector, limit=10, exact=False)
        semantic_times.append(t.seconds)
        with Timer() as t:
            exact = semantic.search(bank=bank, query_vector=vector, limit=10, exact=True)
        exact_times.append(t.seconds)
        exact_ids = {hit.item_id for hit in exact}
        agreements.append(len(exact_ids & {hit.item_id for hit in approx}) / max(1, len(exact_ids)))

    http_times = []
    for query in queries[:100]:
        with Timer() as t:
            response = client.post(
                f"/api/v1/banks/{bank.slug}/recall", {"query": query, "budget_tokens": 1024}, format="json"
            )
        assert response.status_code == 200
        http_times.append(t.seconds)

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_total_relation_size('beliefs_episode'), pg_relation_size('beliefs_episode_embedding_hnsw'),"
            " pg_relation_size('beliefs_episode_search_gin')"
        )
        table_bytes, hnsw_bytes, gin_bytes = cursor.fetchone()

    result = {
        "benchmark": "foundation",
        "machine": machine(),
        "episodes": stored,
        "retain": {
            "batch_size": args.batch,
            "seconds": round(total.seconds, 2),
            "episodes_per_s": round(retain_rate, 1),
            "batch_latency": summary_ms(batch_times),
            "note": "HTTP API in-process; embedding included",
        },
        "recall_service": summary_ms(recall_times),
        "recall_http_in_process": summary_ms(http_times),
        "semantic_hnsw_top10": summary_ms(semantic_times),
        "semantic_exact_top10": summary_ms(exact_times),
        "hnsw_recall_at_10_vs_exact": round(sum(agreements) / len(agreements), 4),
        "storage_mb": {
            "table_total": round(table_bytes / 2**20, 1),
            "hnsw_index": round(hnsw_bytes / 2**20, 1),
            "gin_index": round(gin_bytes / 2**20, 1),
        },
        "process_rss_mb": rss_mb(),
        "budget_tokens": 1024,
    }
    path = write_result("foundation", result)
    print(
        f"recall p50/p95: {result['recall_service']['p50_ms']}/{result['recall_service']['p95_ms']} ms; "
        f"exact semantic p95 {result['semantic_exact_top10']['p95_ms']} ms; "
        f"HNSW recall@10 {result['hnsw_recall_at_10_vs_exact']}"
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
