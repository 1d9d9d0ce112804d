"""A large bank's own vector index: built, read by the semantic channel, rebuilt as the bank grows, dropped."""

import io
import random

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext, override_settings

from banks.models import Bank
from beliefs.channels import keyword, semantic
from beliefs.models import Episode
from beliefs.services.forget.episodes import episode_delete
from beliefs.services.vector_indexes import (
    bank_vector_index_refresh,
    index_lists,
    index_name,
    keyword_index_name,
    vector_index_due,
    vector_indexes_refresh,
)
from memoryhub.embeddings import embed_query
from memoryhub.tenancy import set_request_tenant
from tests.helpers.callers import make_caller, retain_texts

HOSTS = [f"db-{n:02d}" for n in range(1, 9)]
SIGNALS = ["disk latency high", "replica lag", "cpu saturation", "queue backlog", "certificate expiry"]


def small_threshold(**more):
    """Settings under which 40 episodes make a large bank and an index built at 100 or more merges a walk (a fresh
    object each time: they nest)."""
    lowered = {"VECTOR_INDEX_MIN_EPISODES": 40, "EXACT_SEARCH_BELOW": 10, "VECTOR_INDEX_WALK_FROM": 100, **more}
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

    search_sql, plan = search_against_exact(large_bank)
    assert "UNION ALL" not in search_sql and "hnsw" not in plan  # the bank's own lists alone
    assert f"Index Scan using {index_name(large_bank.pk, 60, 10)}" in plan


def keyword_hits(bank, query: str) -> list[tuple[int, float]]:
    """The keyword channel's hits for ``query`` as a request reads them (through the security-definer match)."""
    with transaction.atomic():
        set_request_tenant(bank.tenant_id)
        return [(hit.item_id, round(hit.score, 6)) for hit in keyword.search(bank=bank, query_text=query, limit=20)]


def keyword_match_plan(bank) -> str:
    """Which full-text index PostgreSQL reads for the keyword channel's match in ``bank``: the plan of the body of
    the function the request role calls, with the bank and a query in place of its parameters (the function plans
    each call for its own values). On a table this small the planner would rather read the bank's rows through a
    b-tree index, or all of them; b-trees and scans are set aside, in a transaction rolled back, so only the choice
    between full-text indexes is left."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'beliefs_episode' AND indexdef LIKE '%% USING btree %%'"
        )
        for (name,) in cursor.fetchall():
            cursor.execute(f'ALTER TABLE beliefs_episode DROP CONSTRAINT IF EXISTS "{name}" CASCADE')  # a key's index
            cursor.execute(f'DROP INDEX IF EXISTS "{name}"')
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = 'memoryhub_keyword_candidates'")
        body = cursor.fetchone()[0]
        body = body.replace("(SELECT public.memoryhub_tenant())", str(bank.tenant_id)).replace("p_bank", str(bank.pk))
        body = body.replace("p_query", "to_tsquery('simple', 'replica | lag')").replace("p_limit", "1500")
        cursor.execute("EXPLAIN " + body)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        transaction.set_rollback(True)
    return plan


@small_threshold()
def test_the_bank_s_own_keyword_index_serves_its_full_text_match_with_the_same_hits(large_bank):
    before = keyword_hits(large_bank, "replica lag on db-03")
    assert before and "beliefs_episode_search_gin" in keyword_match_plan(large_bank)  # the index every bank shares

    assert bank_vector_index_refresh(bank=large_bank) == "built"
    definition = indexes_on_episodes()[keyword_index_name(large_bank.pk)]
    assert "USING gin (search_vector)" in definition and f"WHERE (bank_id = {large_bank.pk})" in definition
    plan = keyword_match_plan(large_bank)
    assert f"Bitmap Index Scan on {keyword_index_name(large_bank.pk)}" in plan
    assert "beliefs_episode_search_gin" not in plan
    assert keyword_hits(large_bank, "replica lag on db-03") == before

    # A bank that held its vector index before keyword indexes existed (or lost a build) gets one on the next refresh.
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX {keyword_index_name(large_bank.pk)}")
    assert bank_vector_index_refresh(bank=large_bank) == "unchanged"
    assert keyword_index_name(large_bank.pk) in indexes_on_episodes()


def search_against_exact(bank) -> tuple[str, str]:
    """Search ``bank`` as a request would, assert the exact top 10 comes back; the search's SQL and its plan."""
    query = embed_query("replica lag on db-03")
    with transaction.atomic():
        set_request_tenant(bank.tenant_id)  # as a request would: the request role, row-level security on
        with CaptureQueriesContext(connection) as queries:
            approximate = semantic.search(bank=bank, query_vector=query, limit=10)
        exact = semantic.search(bank=bank, query_vector=query, limit=10, exact=True)
        # The scan settings travel in the same request as the search ("save; set; search; restore"): explain the search.
        search_sql = next(part for q in queries.captured_queries for part in q["sql"].split("; ") if "halfvec" in part)
        with connection.cursor() as cursor:
            # A table this small is cheaper to scan, or to read through a b-tree and sort, than to search by an index
            # (the choice then follows the table's statistics of the moment): ask which index can serve the order.
            for path in ("seqscan", "bitmapscan", "sort"):
                cursor.execute(f"SET LOCAL enable_{path} = off")
            cursor.execute("EXPLAIN " + search_sql, [])
            plan = "\n".join(row[0] for row in cursor.fetchall())
    assert [hit.item_id for hit in approximate] == [hit.item_id for hit in exact]
    return search_sql, plan


@small_threshold()
def test_the_index_is_rebuilt_when_the_bank_doubles_and_dropped_when_it_shrinks(large_bank):
    assert bank_vector_index_refresh(bank=large_bank) == "built"
    retain_texts(large_bank, alerts(70, seed=2))
    large_bank.refresh_from_db()
    assert bank_vector_index_refresh(bank=large_bank) == "rebuilt"
    assert large_bank.vector_index_lists == index_lists(130) == 11 and large_bank.vector_index_episodes == 130
    names = {name for name in indexes_on_episodes() if name.startswith(f"beliefs_episode_ivf_b{large_bank.pk}_")}
    assert names == {index_name(large_bank.pk, 130, 11)}  # the first build is gone
    assert keyword_index_name(large_bank.pk) in indexes_on_episodes()  # kept: nothing in it depends on the size
    search_sql, plan = search_against_exact(large_bank)  # built at 130 (>= 100): the lists and a short walk
    assert "UNION ALL" in search_sql and f"Index Scan using {index_name(large_bank.pk, 130, 11)}" in plan

    for pk in Episode.objects.filter(bank=large_bank).order_by("id").values_list("id", flat=True)[:115]:
        episode_delete(bank=large_bank, episode_id=pk)
    assert bank_vector_index_refresh(bank=large_bank) == "dropped"
    large_bank.refresh_from_db()
    assert large_bank.vector_index_lists is None and large_bank.vector_index_episodes == 0
    assert not any(name.startswith(f"beliefs_episode_ivf_b{large_bank.pk}_") for name in indexes_on_episodes())
    assert keyword_index_name(large_bank.pk) not in indexes_on_episodes()  # dropped with it
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
    assert {name, keyword_index_name(large_bank.pk)} <= set(indexes_on_episodes())
    assert vector_indexes_refresh()["dropped"] == 1
    assert not {name, keyword_index_name(large_bank.pk)} & set(indexes_on_episodes())


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


@small_threshold()
def test_extraction_notices_a_bank_that_grew_past_the_threshold_and_its_index_is_built(transactional_db, eager_tasks):
    from beliefs.tasks import extract_bank_task

    bank = make_caller().bank
    retain_texts(bank, alerts(30, seed=4))  # eager: extraction ran after the retain, below the threshold
    bank.refresh_from_db()
    assert bank.vector_index_lists is None and not vector_index_due(bank)
    try:
        retain_texts(bank, alerts(20, seed=5))  # 50 episodes: extraction enqueues the bank's build
        bank.refresh_from_db()
        assert bank.vector_index_lists == index_lists(50) and bank.vector_index_episodes == 50
        assert index_name(bank.pk, 50, index_lists(50)) in indexes_on_episodes()
        assert not vector_index_due(bank)
        assert extract_bank_task(bank_id=bank.pk)["episodes"] == 0  # nothing new, nothing enqueued
    finally:
        with override_settings(MEMORYHUB={**settings.MEMORYHUB, "VECTOR_INDEX_MIN_EPISODES": 10**9}):
            vector_indexes_refresh()


@small_threshold(VECTOR_INDEX_MAX_BANKS=1)
def test_only_the_largest_banks_hold_an_index(large_bank):
    larger = make_caller().bank
    retain_texts(larger, alerts(80, seed=6))
    assert vector_indexes_refresh() == {"built": 1, "rebuilt": 0, "dropped": 0, "unchanged": 1}
    larger.refresh_from_db()
    large_bank.refresh_from_db()
    assert larger.vector_index_lists == index_lists(80) and large_bank.vector_index_lists is None
    assert not vector_index_due(large_bank)  # no room: extraction would not ask for a build either

    retain_texts(large_bank, alerts(40, seed=7))  # now the larger of the two (100 against 80)
    assert vector_indexes_refresh() == {"built": 1, "rebuilt": 0, "dropped": 1, "unchanged": 0}
    larger.refresh_from_db()
    large_bank.refresh_from_db()
    assert larger.vector_index_lists is None and large_bank.vector_index_lists == index_lists(100)
    assert {n for n in indexes_on_episodes() if n.startswith("beliefs_episode_ivf_")} == {
        index_name(large_bank.pk, 100, index_lists(100))
    }
