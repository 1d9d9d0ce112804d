"""Recall mechanisms meant to carry to conversations nobody tuned on, pinned on constructed cases.

Each case is built so the mechanism decides it: a second hop across sessions, time phrasings
none of the development conversations use, read relative to the bank's own timeline.
"""

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils.dateparse import parse_datetime

from beliefs.services.recall import RecallOptions, recall
from beliefs.services.retain import RetainItem, retain
from tests.helpers.callers import retain_texts


def _turns(bank, turns):
    """Retain (session, speaker, text) turns, one thread per session, a day apart."""
    items = [
        RetainItem(
            content=f"{speaker}: {text}",
            subject=speaker,
            thread=f"session-{session}",
            occurred_at=parse_datetime(f"2023-06-{session:02d}T10:{index % 60:02d}:00Z"),
        )
        for index, (session, speaker, text) in enumerate(turns)
    ]
    return [outcome.episode_id for outcome in retain(bank=bank, items=items).outcomes]


def _with(**values):
    return override_settings(MEMORYHUB={**settings.MEMORYHUB, **values})


def test_a_second_hop_follows_an_entity_from_the_best_turn_to_another_session(caller):
    # The question asks about the town Priya left; the turn that answers its second half (who lives there now)
    # is in another session and shares nothing with the question but the town the first turn names. Priya speaks
    # most turns, as a chat's speakers do, so her name leads nowhere by itself (the graph channel's seeds skip it).
    ids = _turns(
        caller.bank,
        [
            (1, "Priya", "I moved here from Tartu four years ago, right after university."),
            (1, "Omar", "That is a big move. Do you miss it?"),
            *[(2, "Priya", f"My cousin number {n} moved to a flat near the station last spring.") for n in range(12)],
            *[(3, "Priya", f"Sunday football score {n} to {n + 1}, what a match.") for n in range(12)],
            (4, "Priya", "My grandmother still runs her bakery in Tartu and mails me rye bread."),
            (4, "Omar", "Rye bread by post sounds wonderful."),
        ],
    )
    moved, grandmother = ids[0], ids[-2]
    query = "Where did Priya move from four years ago, and who is still there?"

    def scores(weight):
        with _with(RECALL_HOP_WEIGHT=weight, RECALL_FEEDBACK=0.0):
            result = recall(bank=caller.bank, query=query, budget_tokens=1000)
        return result, {item.item_id: item.score for item in result.items}

    without, before = scores(0.0)
    result, after = scores(0.1)
    assert result.items[0].item_id == without.items[0].item_id == moved
    assert after[moved] == pytest.approx(before[moved])  # the source is a direct hit: no vote for itself
    # The grandmother's turn gains a vote below a direct hit (at most the weight), for the rare town it shares.
    assert 0.05 < after[grandmother] - before[grandmother] <= 0.1
    # Turns nothing leads to do not move.
    football = [item.item_id for item in result.items if "football" in item.text]
    assert football and all(after[pk] == pytest.approx(before[pk]) for pk in football)
    assert "hop" in result.channel_ms and "hop" not in without.channel_ms  # explain reports the stage's time
    assert result.tokens_used <= 1000


def test_time_phrasings_no_development_file_uses_meet_on_the_bank_s_timeline(caller):
    # "two weekends ago" said on 22 October is the week of 2 October; the question's "first week of October" is
    # 1-8 October. "this past Friday" (20 October) is outside it.
    said = parse_datetime("2023-10-22T15:00:00Z")
    texts = ["Ran the Lisbon half marathon two weekends ago.", "Ran the Porto half marathon this past Friday."]
    lisbon, porto = (
        outcome.episode_id
        for outcome in retain(bank=caller.bank, items=[RetainItem(content=t, occurred_at=said) for t in texts]).outcomes
    )
    options = RecallOptions(channels=("temporal",), rerank=False, kinds=("episode",))
    result = recall(
        bank=caller.bank, query="Which race did I run in the first week of October?", budget_tokens=200, options=options
    )
    assert [item.item_id for item in result.items] == [lisbon]
    assert porto not in [item.item_id for item in result.items]


@pytest.mark.parametrize(
    "question", ["In which month did Dana adopt the puppy?", "What year did Dana adopt the puppy?"]
)
def test_a_question_asking_for_a_time_prefers_turns_that_carry_one(caller, question):
    # Neither question opens with "when"; both ask for a time. The turn that carries time wins over a near-copy
    # without any.
    dated, undated = (
        retain_texts(caller.bank, [text], subject="Dana")[0]
        for text in ["Dana: We adopted the puppy a few days back!", "Dana: We adopted the puppy, she is lovely!"]
    )
    options = RecallOptions(channels=("temporal",), rerank=False, kinds=("episode",))
    result = recall(bank=caller.bank, query=question, budget_tokens=200, options=options)
    assert [item.item_id for item in result.items] == [dated]
    assert undated not in [item.item_id for item in result.items]


def test_the_graph_channel_starts_from_identifiers_not_names(caller):
    # A person's name is a word the keyword channel matches; a host name is an identifier text search splits
    # ("db-07" is two lexemes). The graph channel follows only the second kind unless told otherwise.
    retain_texts(
        caller.bank,
        [
            "Priya restarted db-07 after the disk filled up.",
            "Priya bought rye bread.",
            "db-07 is healthy again.",
            "Omar fixed the printer on the third floor.",
            "The printer jammed again this morning.",
        ],
    )
    from beliefs.channels import graph

    by_name = recall(bank=caller.bank, query="What did Priya buy?", budget_tokens=200)
    assert by_name.channel_counts["graph"] == 0
    assert graph.seed_entities(bank=caller.bank, query_text="What did Priya buy?") == {}
    by_host = recall(bank=caller.bank, query="what happened to db-07", budget_tokens=200)
    assert all("graph" in item.channels for item in by_host.items if "db-07" in item.text)
    assert by_host.channel_counts["graph"] >= 2
    with _with(RECALL_GRAPH_SEED_KINDS=()):  # every kind: names lead too
        assert recall(bank=caller.bank, query="What did Priya buy?", budget_tokens=200).channel_counts["graph"] >= 2


def test_the_second_hop_fetches_a_turn_of_another_session_the_first_pass_never_read(caller):
    # The turn that answers the question's second half shares no word with the question (Omar speaks it, and it
    # says neither "Priya" nor "still") and is not among the candidates any channel returns: sixty turns about
    # moving are closer to the question. Only the rare town it shares with the best turn leads to it.
    ids = _turns(
        caller.bank,
        [
            (1, "Priya", "I moved here from Tartu four years ago, right after university."),
            (1, "Omar", "That is a big move. Do you miss it?"),
            *[(2, "Priya", f"My cousin number {n} moved flats last spring.") for n in range(30)],
            *[(3, "Omar", f"Moving day {n + 100}: so many boxes everywhere.") for n in range(30)],
            (4, "Omar", "Your grandmother runs that bakery in Tartu and mails you rye bread."),
            (4, "Priya", "Rye bread by post is the best kind of letter."),
        ],
    )
    moved, grandmother = ids[0], ids[-2]
    query = "Where did Priya move from four years ago, and who is still there?"

    def run(fetch):
        with _with(RECALL_HOP_FETCH=fetch, RECALL_CANDIDATES_PER_CHANNEL=5, RECALL_HOP_WEIGHT=0.0, RECALL_FEEDBACK=0.0):
            return recall(bank=caller.bank, query=query, budget_tokens=160)

    without, result = run(0), run(8)
    assert moved in {item.item_id for item in without.items}
    assert grandmother not in {item.item_id for item in without.items}
    assert "fetch" not in without.channel_ms
    found = {item.item_id: item for item in result.items}
    assert [item.item_id for item in result.items].index(moved) == [item.item_id for item in without.items].index(moved)
    assert grandmother in found and found[grandmother].channels == ("hop",)
    assert found[grandmother].score < found[moved].score
    # Only what a rare word of the best turns reaches is fetched: none of the turns about moving house.
    assert all("hop" not in item.channels for item in result.items if item.item_id != grandmother)
    assert "fetch" in result.channel_ms and result.tokens_used <= 160
