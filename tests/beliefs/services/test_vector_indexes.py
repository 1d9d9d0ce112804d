"""A large bank's own vector index: built, read by the semantic channel, rebuilt as the bank grows, dropped."""

import io
import random

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext, override_settings

from banks.models import Bank
from beliefs.channels import semantic
from beliefs.models import Episode
from beliefs.services.forget.episodes import episode_delete
from beliefs.services.vector_indexes import (
    bank_vector_index_refresh,
    index_lists,
    index_name,
    vector_indexes_refresh,
)
from memoryhub.embeddings import embed_query
from memoryhub.tenancy import set_request_tenant
from tests.helpers.callers import make_caller, retain_texts

HOSTS = [f"db-{n:02d}" for n in range(1, 9)]
SIGNALS = ["disk latency high", "replica lag", "cpu saturation", "queue backlog", "certificate expiry"]


def small_threshold():
    """Settings under which 40 episodes make a large bank (a fresh object each time: they nest)."""
    lowered = {"VECTOR_INDEX_MIN_EPISODES": 40, "EXACT_SEARCH_BELOW": 10}
    return override_settings(MEMORYHUB={**settings.MEMORYHUB, **lowered})


def alerts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        f"Alert {rng.choice(SIGNALS)} on {rng.choice(HOSTS)}: value {rng.randint(50, 99)}, run {seed}-{n}"
        for n in range(count)
    ]


def indexes_on_episodes() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'beliefs_episode'")
        return dict(cursor.fetchall())


@pytest.fixture
def large_bank(transactional_db):
    """A bank over the (lowered) threshold; its index is dropped afterwards whatever the test did."""
    with small_threshold():
        caller = make_caller()
        retain_texts(caller.bank, alerts(60, seed=1))
        yield caller.bank
    with override_settings(MEMORYHUB={**settings.MEMORYHUB, "VECTOR_INDEX_MIN_EPISODES": 10**9}):
        vector_indexes_refresh()  # drops what the test left


@small_threshold()
def test_a_large_bank_gets_an_index_of_its_own_and_its_search_reads_it(large_bank):
    assert bank_vector_index_refresh(bank=large_bank) == "built"
    large_bank.refresh_from_db()
    assert large_bank.vector_index_lists == index_lists(60) == 10 and large_bank.vector_index_episodes == 60
    definition = indexes_on_episodes()[index_name(large_bank.pk, 60, 10)]
    assert "ivfflat" in definition and f"WHERE (bank_id = {large_bank.pk})" in definition
    assert bank_vector_index_refresh(bank=large_bank) == "unchanged"

    query = embed_query("replica lag on db-03")
    with transaction.atomic():
        set_request_tenant(large_bank.tenant_id)  # as a request would: the request role, row-level security on
        with CaptureQueriesContext(connection) as queries:
            approximate = semantic.search(bank=large_bank, query_vector=query, limit=10)
        exact = semantic.search(bank=large_bank, query_vector=query, limit=10, exact=True)
        # The scan settings travel in the same request as the search ("save; set; search; restore"): explain the search.
        search_sql = next(
            part for q in queries.captured_queries for part in q["sql"].split("; ") if "UNION ALL" in part
        )
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")  # a 60-row table is cheaper to scan: ask what can serve
            cursor.execute("EXPLAIN " + search_sql)
            plan = "\n".join(row[0] for row in cursor.fetchall())
    assert [hit.item_id for hit in approximate] == [hit.item_id for hit in exact]
    assert f"Index Scan using {index_name(large_bank.pk, 60, 10)}" in plan


@small_threshold()
def test_the_index_is_rebuilt_when_the_bank_doubles_and_dropped_when_it_shrinks(large_bank):
    assert bank_vector_index_refresh(bank=large_bank) == "built"
    retain_texts(large_bank, alerts(70, seed=2))
    large_bank.refresh_from_db()
    assert bank_vector_index_refresh(bank=large_bank) == "rebuilt"
    assert large_bank.vector_index_lists == index_lists(130) == 11 and large_bank.vector_index_episodes == 130
    names = {name for name in indexes_on_episodes() if name.startswith(f"beliefs_episode_ivf_b{large_bank.pk}_")}
    assert names == {index_name(large_bank.pk, 130, 11)}  # the first build is gone

    for pk in Episode.objects.filter(bank=large_bank).order_by("id").values_list("id", flat=True)[:115]:
        episode_delete(bank=large_bank, episode_id=pk)
    assert bank_vector_index_refresh(bank=large_bank) == "dropped"
    large_bank.refresh_from_db()
    assert large_bank.vector_index_lists is None and large_bank.vector_index_episodes == 0
    assert not any(name.startswith(f"beliefs_episode_ivf_b{large_bank.pk}_") for name in indexes_on_episodes())
    hits = semantic.search(bank=large_bank, query_vector=embed_query("replica lag"), limit=5)
    assert len(hits) == 5  # back on the shared index


@small_threshold()
def test_the_sweep_builds_for_large_banks_only_and_drops_the_index_of_a_forgotten_bank(large_bank):
    small = make_caller().bank
    retain_texts(small, alerts(5, seed=3))
    assert vector_indexes_refresh() == {"built": 1, "rebuilt": 0, "dropped": 0, "unchanged": 0}
    small.refresh_from_db()
    assert small.vector_index_lists is None
    assert vector_indexes_refresh() == {"built": 0, "rebuilt": 0, "dropped": 0, "unchanged": 1}
    name = index_name(large_bank.pk, 60, 10)
    Bank.objects.filter(pk=large_bank.pk).delete()  # as forgetting a bank does; its index stays until the sweep
    assert name in indexes_on_episodes()
    assert vector_indexes_refresh()["dropped"] == 1
    assert name not in indexes_on_episodes()


@small_threshold()
def test_an_index_built_under_another_rule_for_lists_is_rebuilt_and_an_unlisted_name_kept(large_bank):
    legacy = f"beliefs_episode_ivf_b{large_bank.pk}_n60"  # how indexes were named before lists were in the name
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE INDEX {legacy} ON beliefs_episode USING ivfflat ((embedding::halfvec(384)) halfvec_cosine_ops)"
            f" WITH (lists = 5) WHERE bank_id = {large_bank.pk}"
        )
    Bank.objects.filter(pk=large_bank.pk).update(vector_index_lists=5, vector_index_episodes=60)
    large_bank.refresh_from_db()
    assert bank_vector_index_refresh(bank=large_bank) == "rebuilt"
    assert large_bank.vector_index_lists == 10 and large_bank.vector_index_episodes == 60
    names = {name for name in indexes_on_episodes() if name.startswith(f"beliefs_episode_ivf_b{large_bank.pk}_")}
    assert names == {index_name(large_bank.pk, 60, 10)}

    # A bank whose lists already follow the rule keeps its index under the name it was built with.
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER INDEX {index_name(large_bank.pk, 60, 10)} RENAME TO {legacy}")
    assert vector_indexes_refresh() == {"built": 0, "rebuilt": 0, "dropped": 0, "unchanged": 1}
    assert legacy in indexes_on_episodes()


def test_index_lists_are_the_square_root_of_the_bank():
    assert [index_lists(n) for n in (60, 50_000, 100_000, 1_000_000, 4_000_000)] == [10, 223, 316, 1000, 2000]
    assert [semantic.index_probes(lists) for lists in (10, 100, 1000, 4000)] == [10, 20, 32, 63]


@small_threshold()
def test_the_command_builds_what_the_sweep_would(large_bank):
    out = io.StringIO()
    call_command("vector_indexes", stdout=out)
    assert out.getvalue().strip() == "built 1, rebuilt 0, dropped 0, unchanged 0"
    large_bank.refresh_from_db()
    assert large_bank.vector_index_lists == 10
