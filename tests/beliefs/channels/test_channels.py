"""Each channel on its own, against the real database."""

from datetime import timedelta

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.dateparse import parse_datetime

from beliefs.channels import graph, keyword, temporal
from beliefs.engine.temporal import parse_time_ranges
from beliefs.models import BankTerm, BankTextStats, Entity, Episode
from beliefs.services.forget.episodes import episode_delete
from memoryhub.embeddings import embed_query
from tests.helpers.callers import retain_texts


def texts(bank, hits):
    contents = dict(Episode.objects.filter(bank=bank).values_list("id", "content"))
    return [contents[hit.item_id] for hit in hits]


def test_keyword_bm25_rewards_the_rare_term(caller):
    retain_texts(caller.bank, [f"alert fired on host number {n}" for n in range(20)])
    retain_texts(caller.bank, ["quasar calibration drifted", "alert alert alert on the quasar array"])
    hits = keyword.search(bank=caller.bank, query_text="alert quasar", limit=5)
    top_two = texts(caller.bank, hits[:2])
    assert set(top_two) == {"quasar calibration drifted", "alert alert alert on the quasar array"}
    assert hits[0].score > hits[2].score


def test_term_statistics_follow_retain_and_delete(caller):
    [first, _] = retain_texts(caller.bank, ["zebra crossing closed", "zebra spotted near gate"])
    zebra = BankTerm.objects.get(bank=caller.bank, lexeme="zebra")
    assert zebra.doc_count == 2
    assert BankTextStats.objects.get(bank=caller.bank).doc_count == 2
    episode_delete(bank=caller.bank, episode_id=first)
    assert BankTerm.objects.get(bank=caller.bank, lexeme="zebra").doc_count == 1
    assert not BankTerm.objects.filter(bank=caller.bank, lexeme="cross").exists()
    assert BankTextStats.objects.get(bank=caller.bank).doc_count == 1


def test_keyword_query_of_only_unknown_or_stop_words_finds_nothing(caller):
    retain_texts(caller.bank, ["the cache was cold"])
    assert keyword.search(bank=caller.bank, query_text="the and of", limit=5) == []
    assert keyword.search(bank=caller.bank, query_text="xylophone", limit=5) == []


def test_entities_are_linked_and_spellings_merge(caller):
    retain_texts(caller.bank, ["Disk alert on db-01 overnight", "DB01 rebooted by the on-call engineer"])
    entity = Entity.objects.get(bank=caller.bank, key="db01")
    assert entity.episode_count == 2
    assert entity.name == "db-01" and entity.aliases == ["DB01"]
    assert entity.episode_links.count() == 2


def test_graph_channel_follows_entities_and_one_hop(caller):
    retain_texts(
        caller.bank,
        [
            "INC-2291 opened: checkout-api failing",
            "INC-2291 traced to cert rotation on gateway-7",
            "gateway-7 certificate renewed by Dana",
            "checkout-api latency is fine today",
            "Lunch order for the team",
        ],
    )
    hits = graph.search(bank=caller.bank, query_text="what caused inc 2291?", limit=10)
    found = texts(caller.bank, hits)
    assert set(found[:2]) == {"INC-2291 opened: checkout-api failing", "INC-2291 traced to cert rotation on gateway-7"}
    # One hop: gateway-7 and checkout-api co-occur with INC-2291, so their other episodes come too, ranked lower.
    assert set(found[2:]) == {"gateway-7 certificate renewed by Dana", "checkout-api latency is fine today"}
    assert hits[2].score < hits[1].score
    assert "Lunch order for the team" not in found


def test_graph_ignores_entities_present_everywhere(caller):
    retain_texts(caller.bank, [f"Caroline: message {n} about something" for n in range(10)])
    assert graph.search(bank=caller.bank, query_text="What did Caroline say?", limit=5) == []


def test_episode_records_the_time_its_text_talks_about(caller):
    with CaptureQueriesContext(connection) as queries:
        [episode_id, plain_id] = retain_texts(
            caller.bank,
            ["I went to the support group yesterday", "The support group meets in the library"],
            occurred_at=parse_datetime("2023-05-08T13:56:00Z"),
        )
    episode = Episode.objects.get(pk=episode_id)
    assert episode.mentions_time is True
    assert episode.mentioned_start.date().isoformat() == "2023-05-07"
    assert Episode.objects.filter(pk=plain_id, mentions_time=False, mentioned_start__isnull=True).exists()
    # Written with the row: an UPDATE of each new episode would insert it into every index (HNSW too) twice.
    assert not [q["sql"] for q in queries.captured_queries if q["sql"].startswith('UPDATE "beliefs_episode"')]


def test_temporal_channel_returns_the_months_episodes(caller):
    for month, text in [(5, "painted a sunrise"), (6, "went camping with the kids"), (7, "signed up for pottery")]:
        retain_texts(caller.bank, [f"Melanie {text}"], occurred_at=parse_datetime(f"2023-0{month}-10T10:00:00Z"))
    reference = temporal.reference_time(bank=caller.bank, now=None, as_of=None)
    assert reference == parse_datetime("2023-07-10T10:00:00Z")
    query = "What did Melanie do in June?"
    hits = temporal.search(
        bank=caller.bank,
        query_text=query,
        query_vector=embed_query(query),
        limit=5,
        ranges=parse_time_ranges(query, reference),
    )
    assert texts(caller.bank, hits) == ["Melanie went camping with the kids"]


def _ranks_by_index_walk(caller, query, monkeypatch, exact_below) -> tuple[bool, list[str]]:
    """Whether the temporal channel walked the vector index for ``query`` (rather than rank its range exactly)."""
    monkeypatch.setattr(temporal, "EXACT_BELOW", exact_below)
    reference = temporal.reference_time(bank=caller.bank, now=None, as_of=None)
    with CaptureQueriesContext(connection) as queries:
        hits = temporal.search(
            bank=caller.bank,
            query_text=query,
            query_vector=embed_query(query),
            limit=5,
            ranges=parse_time_ranges(query, reference),
            exact=False,
        )
    # An exact ranking orders by the distance plus zero, which no vector index can serve.
    walked = not any(") + 0 AS distance" in q["sql"] for q in queries.captured_queries)
    return walked, texts(caller.bank, hits)


def test_temporal_channel_ranks_a_sparse_range_exactly_and_a_dense_one_by_index_walk(caller, monkeypatch):
    july = parse_datetime("2023-07-05T10:00:00Z")
    retain_texts(caller.bank, [f"routine check {n}" for n in range(12)], occurred_at=july)
    retain_texts(caller.bank, ["Melanie went camping"], occurred_at=parse_datetime("2023-06-10T10:00:00Z"))
    retain_texts(caller.bank, ["latest note"], occurred_at=parse_datetime("2023-07-10T10:00:00Z"))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE beliefs_episode")  # the estimate comes from column statistics
    # June holds one episode: below the threshold, it is read through its B-tree and ranked exactly.
    assert _ranks_by_index_walk(caller, "What did Melanie do in June?", monkeypatch, exact_below=5) == (
        False,
        ["Melanie went camping"],
    )
    # July holds 13: above the threshold, the index walk ranks them (it would scan past few matches).
    walked, found = _ranks_by_index_walk(caller, "What happened in July?", monkeypatch, exact_below=5)
    assert walked and len(found) == 5 and "Melanie went camping" not in found
    # A range with no episode at all costs no index walk either.
    assert _ranks_by_index_walk(caller, "What happened in March 2021?", monkeypatch, exact_below=5) == (False, [])


def test_when_question_prefers_episodes_that_carry_time(caller):
    retain_texts(caller.bank, ["Caroline loves the support group", "Caroline went to the support group last Friday"])
    query = "When did Caroline go to the support group?"
    hits = temporal.search(bank=caller.bank, query_text=query, query_vector=embed_query(query), limit=5, ranges=[])
    assert texts(caller.bank, hits) == ["Caroline went to the support group last Friday"]


def test_request_now_overrides_the_reference(caller):
    retain_texts(caller.bank, ["old"], occurred_at=parse_datetime("2023-01-01T00:00:00Z"))
    now = parse_datetime("2024-02-02T00:00:00Z")
    assert temporal.reference_time(bank=caller.bank, now=now, as_of=None) == now
    as_of = parse_datetime("2022-06-01T00:00:00Z")
    assert temporal.reference_time(bank=caller.bank, now=None, as_of=as_of) is None
    assert now - timedelta(days=1) < now


def test_keyword_websearch_operators_filter(caller):
    retain_texts(caller.bank, ["backup finished on db-01", "backup failed on db-02", "the backup window moved"])
    quoted = keyword.search(bank=caller.bank, query_text='"backup failed" status', limit=5)
    assert texts(caller.bank, quoted) == ["backup failed on db-02"]
    excluded = keyword.search(bank=caller.bank, query_text="backup -window", limit=5)
    assert sorted(texts(caller.bank, excluded)) == ["backup failed on db-02", "backup finished on db-01"]
    for hostile in ['"', "-", '"unclosed phrase', "- -- ---", '"" -""']:
        keyword.search(bank=caller.bank, query_text=f"backup {hostile}", limit=5)
