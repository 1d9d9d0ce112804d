"""The recall service end to end: parallel channels, rerank, trimming, metrics."""

import time

import pytest
from django.test import override_settings

from beliefs.services.recall import RecallOptions, recall
from memoryhub import metrics
from tests.helpers.callers import make_caller, retain_texts

CORPUS = [
    "Alert DiskLatencyHigh fired on db-01 during the nightly backup window.",
    "Analyst closed DiskLatencyHigh on db-01: the backup saturates the disk.",
    "Checkout errors traced to an expired TLS certificate on gateway-7.",
    "Melanie went camping with her kids last weekend.",
    "Caroline joined a new activist group on Tuesday.",
    "Quarterly revenue grew twelve percent in the enterprise segment.",
]


def summary(result):
    return [(item.item_id, item.channels, item.tokens) for item in result.items]


@pytest.mark.django_db(transaction=True)
def test_parallel_channels_return_what_sequential_channels_return():
    caller = make_caller()
    retain_texts(caller.bank, CORPUS)
    for query in ["db-01 disk alerts", "When did Melanie go camping?", "certificate problems at checkout"]:
        parallel = recall(bank=caller.bank, query=query, budget_tokens=60)
        with override_settings(MEMORYHUB={**_settings(), "PARALLEL_CHANNELS": False}):
            sequential = recall(bank=caller.bank, query=query, budget_tokens=60)
        assert summary(parallel) == summary(sequential)
        assert parallel.items, query
        assert set(parallel.channel_ms) >= {"semantic", "keyword", "graph", "temporal"}


@pytest.mark.django_db(transaction=True)
def test_channel_threads_follow_the_tenant_of_each_recall():
    # Channel threads keep a session-wide tenant scope between recalls: it must switch with the bank's tenant.
    first, second = make_caller(), make_caller()
    [first_id] = retain_texts(first.bank, ["Alert DiskLatencyHigh fired on db-01 at tenant one."])
    [second_id] = retain_texts(second.bank, ["Alert DiskLatencyHigh fired on db-01 at tenant two."])
    for caller, expected in [(first, first_id), (second, second_id), (first, first_id)]:
        result = recall(bank=caller.bank, query="DiskLatencyHigh db-01", budget_tokens=200)
        assert [item.item_id for item in result.items] == [expected]
        assert {"semantic", "keyword", "graph"} <= set(result.channel_ms)


@pytest.mark.django_db(transaction=True)
def test_channel_threads_replace_connections_the_server_dropped():
    from django.db import connection

    caller = make_caller()
    [episode_id] = retain_texts(caller.bank, ["Alert DiskLatencyHigh fired on db-01."])
    assert [item.item_id for item in recall(bank=caller.bank, query="DiskLatencyHigh", budget_tokens=200).items] == [
        episode_id
    ]
    with connection.cursor() as cursor:  # what a server restart or an idle timeout does to the channel threads
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )
        assert cursor.fetchone()[0] >= 3
    time.sleep(1.1)  # a connection idle this long is checked before use
    result = recall(bank=caller.bank, query="DiskLatencyHigh", budget_tokens=200)
    assert [item.item_id for item in result.items] == [episode_id]


def _settings():
    from django.conf import settings

    return dict(settings.MEMORYHUB)


def test_long_item_is_trimmed_into_a_small_budget(caller):
    filler = " ".join(f"Routine status line {n} with nothing to report." for n in range(40))
    retain_texts(caller.bank, [f"{filler} The root cause was a corrupted index on shard nine. {filler}"])
    result = recall(bank=caller.bank, query="root cause corrupted index shard", budget_tokens=40)
    [item] = result.items
    assert item.trimmed is True
    assert "corrupted index on shard nine" in item.text
    assert item.tokens <= 40 and result.tokens_used <= 40 and result.trimmed == 1


def test_rerank_changes_what_fits_a_tight_budget(caller):
    # Many near-misses share a common word with the query; one item matches its rare terms.
    retain_texts(caller.bank, [f"Status report {n}: systems nominal, disk usage normal." for n in range(30)])
    retain_texts(caller.bank, ["Zanzibar replica quarantined after checksum mismatch."])
    query = "why was the zanzibar replica quarantined (disk status)"
    with_rerank = recall(bank=caller.bank, query=query, budget_tokens=15)
    assert [item.text for item in with_rerank.items] == ["Zanzibar replica quarantined after checksum mismatch."]
    assert with_rerank.items[0].features["lexical"] > 0


def test_near_duplicates_are_collapsed_and_cited(caller):
    ids = retain_texts(caller.bank, ["Backup job finished on db-01.", "Backup job finished on db-01!"])
    result = recall(bank=caller.bank, query="backup job db-01", budget_tokens=200)
    assert len(result.items) == 1
    assert set(result.items[0].duplicates) | {result.items[0].item_id} == set(ids)


@pytest.mark.parametrize("stored", ["oldest first", "newest first"])
def test_copies_told_on_several_days_are_shown_by_the_latest_whatever_order_they_were_stored(caller, stored):
    from django.utils.dateparse import parse_datetime

    days = ["2026-01-05", "2026-01-07", "2026-01-06"]
    if stored == "newest first":
        days = sorted(days, reverse=True)
    ids = [
        retain_texts(caller.bank, ["Analyst closed CpuHot on web-2 as benign: deploy warm-up."],
                     occurred_at=parse_datetime(f"{day}T09:00:00Z"))[0]
        for day in days
    ]  # fmt: skip
    retain_texts(caller.bank, CORPUS)
    result = recall(bank=caller.bank, query="is CpuHot on web-2 benign?", budget_tokens=200)
    face = next(item for item in result.items if "CpuHot" in item.text)
    assert face.occurred_at.date().isoformat() == "2026-01-07"
    assert {face.item_id, *face.duplicates} == set(ids)


def test_recall_exports_budget_utilisation(caller):
    retain_texts(caller.bank, CORPUS)
    before = metrics.RECALL_BUDGET_UTILISATION._sum.get()
    result = recall(bank=caller.bank, query="disk alert", budget_tokens=100)
    assert metrics.RECALL_BUDGET_UTILISATION._sum.get() == pytest.approx(before + result.tokens_used / 100)


def test_thread_neighbour_of_a_strong_match_comes_along(caller):
    from django.utils.dateparse import parse_datetime

    from beliefs.services.retain import RetainItem, retain

    turns = [
        "Melanie: What did you paint for the exhibition?",
        "Caroline: A big canvas of the harbour at dawn.",
        "Melanie: Lovely, I have to see it.",
    ]
    noise = [f"Caroline: unrelated chatter number {n} about groceries" for n in range(40)]
    items = [
        RetainItem(content=text, thread="session-1", occurred_at=parse_datetime(f"2023-05-08T10:0{i}:00Z"))
        for i, text in enumerate(turns)
    ] + [RetainItem(content=text, thread="session-2") for text in noise]
    retain(bank=caller.bank, items=items)

    result = recall(bank=caller.bank, query="What did Caroline paint for the exhibition?", budget_tokens=40)
    texts = [item.text for item in result.items]
    assert "Caroline: A big canvas of the harbour at dawn." in texts
    answer = next(item for item in result.items if item.text.startswith("Caroline: A big canvas"))
    assert answer.features["context"] > 0

    without = recall(
        bank=caller.bank,
        query="What did Caroline paint for the exhibition?",
        budget_tokens=40,
        options=RecallOptions(rerank=False),
    )
    assert len(without.items) >= 1


def test_a_question_naming_a_speaker_recalls_that_speaker_s_turn_first(caller):
    # Two people said the same thing; the text does not name them, their episodes' subjects do. Without the
    # subject signal the two are near-duplicates that tie, and the same one wins whoever the question names.
    priya, tomasz = (
        retain_texts(caller.bank, [text], subject=name)[0]
        for name, text in [
            ("Priya", "I went hiking in the Dolomites last summer."),
            ("Tomasz", "I went hiking in the Dolomites last summer!"),
        ]  # fmt: skip
    )
    retain_texts(caller.bank, [f"Groceries list number {n}: apples, rice and tea." for n in range(20)])
    for name, expected, other in [("Tomasz", tomasz, priya), ("Priya", priya, tomasz)]:
        result = recall(bank=caller.bank, query=f"Where did {name} go hiking last summer?", budget_tokens=60)
        assert result.items[0].item_id == expected
        assert result.items[0].subject == name and other in result.items[0].duplicates


def test_time_phrasings_in_questions_and_turns_meet_on_the_bank_s_timeline(caller):
    # Neither "the week before last" (in the turn) nor "early October" (in the question) is a phrasing of the
    # development conversations. The turn was said on 22 October: it happened 2-8 October.
    from django.utils.dateparse import parse_datetime

    from beliefs.services.retain import RetainItem, retain

    said = parse_datetime("2023-10-22T15:00:00Z")
    texts = ["Ran the Lisbon half marathon the week before last.", "I ran the Porto half marathon last weekend."]
    lisbon, porto = (
        outcome.episode_id
        for outcome in retain(bank=caller.bank, items=[RetainItem(content=t, occurred_at=said) for t in texts]).outcomes
    )
    options = RecallOptions(channels=("temporal",), rerank=False, kinds=("episode",))
    result = recall(bank=caller.bank, query="Which half marathon did I run in early October?", budget_tokens=200,
                    options=options)  # fmt: skip
    assert [item.item_id for item in result.items] == [lisbon]
    assert porto not in [item.item_id for item in result.items]
    [(start, end, text)] = result.time_ranges
    assert (start.date().isoformat(), end.date().isoformat(), text) == ("2023-10-01", "2023-10-11", "early October")


def test_reindex_rebuilds_entities_and_term_statistics(caller):
    from beliefs.models import BankTerm, Entity
    from beliefs.services.reindex import bank_reindex

    retain_texts(caller.bank, ["Replica lag on db-02 after the switch upgrade", "db-02 is healthy again"])
    before = (
        sorted(BankTerm.objects.filter(bank=caller.bank).values_list("lexeme", "doc_count")),
        sorted(Entity.objects.filter(bank=caller.bank).values_list("key", "episode_count")),
    )
    BankTerm.objects.filter(bank=caller.bank).delete()
    Entity.objects.filter(bank=caller.bank).delete()
    assert bank_reindex(bank=caller.bank) == 2
    after = (
        sorted(BankTerm.objects.filter(bank=caller.bank).values_list("lexeme", "doc_count")),
        sorted(Entity.objects.filter(bank=caller.bank).values_list("key", "episode_count")),
    )
    assert after == before
    assert ("db02", 2) in after[1]


@pytest.mark.django_db(transaction=True)
def test_the_channel_runner_stops_its_threads_and_starts_again_on_the_next_recall():
    import threading

    from beliefs.services.recall.runner import channel_runner

    caller = make_caller()
    [episode_id] = retain_texts(caller.bank, ["Alert DiskLatencyHigh fired on db-01."])
    recall(bank=caller.bank, query="DiskLatencyHigh", budget_tokens=200)
    threads = [thread for thread in threading.enumerate() if thread.name.startswith("recall-channel")]
    assert threads
    channel_runner().shutdown()
    assert not any(thread.is_alive() for thread in threads)
    result = recall(bank=caller.bank, query="DiskLatencyHigh", budget_tokens=200)
    assert [item.item_id for item in result.items] == [episode_id]
    assert {"semantic", "keyword"} <= set(result.channel_ms)


@pytest.mark.django_db(transaction=True)
def test_a_recall_that_starts_while_another_is_in_flight_runs_its_channels_on_its_own_connection(monkeypatch):
    from beliefs.services.recall.runner import channel_runner

    caller = make_caller()
    retain_texts(caller.bank, CORPUS)
    runner = channel_runner()
    threaded = []
    prepare = runner._prepare_thread
    monkeypatch.setattr(runner, "_prepare_thread", lambda tenant_id: threaded.append(tenant_id) or prepare(tenant_id))
    alone = recall(bank=caller.bank, query="db-01 disk alerts", budget_tokens=60)
    assert threaded  # an idle process hands the channels to its threads
    threaded.clear()
    with runner.batch(tenant_id=caller.bank.tenant_id) as first:  # another recall of this process, in flight
        assert first.parallel and runner.in_flight == 1
        busy = recall(bank=caller.bank, query="db-01 disk alerts", budget_tokens=60)
    assert threaded == [] and runner.in_flight == 0
    assert summary(busy) == summary(alone) and busy.items
    assert {"semantic", "keyword", "graph", "temporal"} <= set(busy.channel_ms)
    with runner.batch(tenant_id=caller.bank.tenant_id) as again:
        assert again.parallel
