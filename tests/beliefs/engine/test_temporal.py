from datetime import UTC, datetime

import pytest

from beliefs.engine.temporal import asks_when, mentions_time, parse_time_ranges

REFERENCE = datetime(2023, 10, 22, 15, 0, tzinfo=UTC)  # a Sunday


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("what happened last Tuesday", "2023-10-17", "2023-10-18"),
        ("outages in May 2023", "2023-05-01", "2023-06-01"),
        ("When did Melanie go camping in June?", "2023-06-01", "2023-07-01"),
        ("anything since March", "2023-03-01", "2023-10-23"),
        ("I went there yesterday", "2023-10-21", "2023-10-22"),
        ("3 days ago", "2023-10-19", "2023-10-20"),
        ("a few weeks ago", "2023-09-25", "2023-10-02"),
        ("last week", "2023-10-09", "2023-10-16"),
        ("last weekend", "2023-10-14", "2023-10-16"),
        ("last year", "2022-01-01", "2023-01-01"),
        ("the summer of 2022", "2022-06-01", "2022-09-01"),
        ("on 7 May 2023", "2023-05-07", "2023-05-08"),
        ("May 8, 2023", "2023-05-08", "2023-05-09"),
        ("incident 2023-05-08", "2023-05-08", "2023-05-09"),
        ("two weeks before June 9", "2023-05-22", "2023-05-29"),
        ("in 2022", "2022-01-01", "2023-01-01"),
        ("a December outage", "2022-12-01", "2023-01-01"),
        # Phrasings LoCoMo's development conversations never use.
        ("the day before yesterday", "2023-10-20", "2023-10-21"),
        ("the week before last", "2023-10-02", "2023-10-09"),
        ("the weekend before last", "2023-10-07", "2023-10-09"),
        ("the month before last", "2023-08-01", "2023-09-01"),
        ("in early May", "2023-05-01", "2023-05-11"),
        ("mid-September", "2023-09-10", "2023-09-21"),
        ("late August 2022", "2022-08-20", "2022-09-01"),
        ("at the end of June", "2023-06-20", "2023-07-01"),
        # Phrasings none of the development conversations' turns or questions use: the grammar reads them by class.
        ("a few days back", "2023-10-19", "2023-10-20"),
        ("two weekends ago", "2023-10-02", "2023-10-09"),
        ("a fortnight ago", "2023-10-02", "2023-10-09"),
        ("this past Friday", "2023-10-20", "2023-10-21"),
        ("this past weekend", "2023-10-14", "2023-10-16"),
        ("the first week of May", "2023-05-01", "2023-05-08"),
        ("the last weekend of June", "2023-06-24", "2023-06-26"),
        ("the other day", "2023-10-15", "2023-10-22"),
    ],
)
def test_expressions_resolve_against_the_reference(text, start, end):
    [found] = parse_time_ranges(text, REFERENCE)
    assert (found.start.date().isoformat(), found.end.date().isoformat()) == (start, end)
    assert found.start.tzinfo is not None


def test_text_without_time_gives_no_range():
    assert parse_time_ranges("I may go to the store", REFERENCE) == []
    assert parse_time_ranges("db-01 disk latency", REFERENCE) == []


def test_impossible_dates_fall_back_to_what_is_valid():
    [month] = parse_time_ranges("on 31 February 2023", REFERENCE)
    assert (month.start.date().isoformat(), month.end.date().isoformat()) == ("2023-02-01", "2023-03-01")
    [year] = parse_time_ranges("2023-13-45", REFERENCE)  # no month 13: the year is what is valid
    assert (year.start.date().isoformat(), year.end.date().isoformat()) == ("2023-01-01", "2024-01-01")
    assert year.text == "2023"


def test_when_questions_are_recognised():
    assert asks_when("When did Caroline join the group?")
    assert asks_when("How long has Melanie been painting?")
    assert not asks_when("What did Caroline paint?")
    # An interrogative governing a unit of time, wherever it stands.
    assert asks_when("In which month did Gina open her store?")
    assert asks_when("What year did John move to Seattle?")
    assert asks_when("How many weeks did the trip last?")
    assert asks_when("At what age did she start painting?")
    assert asks_when("Do you remember when did she leave?")
    assert not asks_when("How many times did he call?")
    assert not asks_when("Which hobby did she pick up?")


def test_time_mentions_in_retained_text():
    assert mentions_time("I painted that lake sunrise last year!")
    assert mentions_time("We met three weeks ago")
    assert not mentions_time("I love painting lakes")
    assert mentions_time("I went there a few days back")
    assert mentions_time("See you this evening")
    assert mentions_time("We spent 3 days hiking the ridge")
    assert mentions_time("My graduation party was great")
    assert not mentions_time("Long time no talk! I got accepted")


def test_last_night_runs_from_the_afternoon_before_to_the_morning():
    [night] = parse_time_ranges("the alarm went off last night", REFERENCE)
    assert night.start == datetime(2023, 10, 21, 12, tzinfo=UTC) and night.end == datetime(2023, 10, 22, 6, tzinfo=UTC)
