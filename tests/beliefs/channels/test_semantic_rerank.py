"""Approximate vector search re-ranks a deeper candidate list by exact distance: the exact top-k, not a near miss."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection

from beliefs.channels import semantic
from beliefs.models import Episode
from tests.factories import BankFactory


def _dense_cluster_bank(rows: int = 3000):
    """Vectors in a few tight clusters: near-ties are where an HNSW walk drifts from the exact order."""
    bank = BankFactory()
    rng = np.random.default_rng(4)
    # Clusters around one shared direction: near each other, so the graph holds them together and a walk
    # from any entry point reaches each (far-apart clusters can become islands no walk enters).
    centres = (rng.normal(size=384) + 0.5 * rng.normal(size=(12, 384))).astype(np.float32)
    vectors = centres[rng.integers(0, 12, rows)] + rng.normal(0, 0.005, (rows, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    Episode.objects.bulk_create(
        [
            Episode(
                tenant_id=bank.tenant_id,
                bank=bank,
                content=f"row {n}",
                content_hash=f"{n}",
                dedupe_key=f"row:{n}",
                token_count=2,
                embedding=vector,
            )
            for n, vector in enumerate(vectors)
        ],
        batch_size=1000,
    )
    return bank, centres


@pytest.mark.django_db
def test_approximate_search_returns_the_exact_top_10_in_a_dense_cluster(settings):
    bank, centres = _dense_cluster_bank()
    settings.MEMORYHUB = {**settings.MEMORYHUB, "HNSW_EF_SEARCH": 10, "HNSW_RERANK_DEPTH": 1000}
    with connection.cursor() as cursor:  # a table this small would be scanned; make the planner walk the index
        cursor.execute("SET LOCAL enable_seqscan = off")
        # Rows earlier tests rolled back are still nodes of the graph until a vacuum: with thousands of them a
        # walk of ef_search 10 could stop before reaching this cluster. Rebuild the index from the live rows.
        cursor.execute("REINDEX INDEX beliefs_episode_embedding_hnsw")
        cursor.execute("ANALYZE beliefs_episode")
    rng = np.random.default_rng(9)
    found = 0
    for centre in centres:
        query = centre + rng.normal(0, 0.005, 384).astype(np.float32)
        query /= np.linalg.norm(query)
        exact = {hit.item_id: hit.score for hit in semantic.search(bank=bank, query_vector=query, limit=10, exact=True)}
        approximate = semantic.search(bank=bank, query_vector=query, limit=10, exact=False)
        assert len(approximate) == 10
        # Re-ranked by exact distance: best first, and every score is the row's exact similarity.
        assert [hit.score for hit in approximate] == sorted((hit.score for hit in approximate), reverse=True)
        for hit in approximate:
            if hit.item_id in exact:
                found += 1
                assert hit.score == pytest.approx(exact[hit.item_id], abs=1e-6)
            else:
                assert hit.score <= min(exact.values()) + 1e-6  # a near miss ranks below every true neighbour
    # A graph walk stays approximate (a walk of ef_search 10 over a shared index can skip a row at the edge of
    # the top 10); the deep re-rank is what keeps it to the odd edge row instead of a shuffled list.
    assert found >= 118


@pytest.mark.django_db
def test_candidate_depth_never_falls_below_the_limit(settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "HNSW_RERANK_DEPTH": 40}
    assert semantic.candidate_depth(10) == 40
    assert semantic.candidate_depth(100) == 100
