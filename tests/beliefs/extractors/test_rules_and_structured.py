"""Keyless extractors: text rules and typed events."""

import pytest

from beliefs.extractors import rules, structured


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Alice lives in Paris.", ("Alice", "lives in", "Paris", False, False, True)),
        ("Alice moved to Berlin because of work.", ("Alice", "lives in", "Berlin", False, False, True)),
        ("I think Bob works at Acme Corp", ("Bob", "works at", "Acme Corp", False, True, True)),
        ("Bob no longer works at Acme.", ("Bob", "works at", "Acme", True, False, True)),
        ("Carol doesn't live in Rome.", ("Carol", "lives in", "Rome", True, False, True)),
        ("I prefer tea over coffee.", ("Dana", "prefers", "tea over coffee", False, False, False)),
        ("db-3 runs on Postgres 16", ("db-3", "runs on", "Postgres 16", False, False, True)),
        ("Maybe Carol lives in Oslo.", ("Carol", "lives in", "Oslo", False, True, True)),
        ("Bob uses Vim every day.", ("Bob", "uses", "Vim", False, False, False)),
    ],
)
def test_rules_read_simple_claims(text, expected):
    [draft] = rules.extract(text, speaker="Dana")
    assert (draft.subject, draft.predicate, draft.object, draft.negated, draft.hedged, draft.functional) == expected
    assert text[draft.quote_start : draft.quote_end].strip() == text.strip()


@pytest.mark.parametrize(
    "text", ["He likes pizza.", "Hey Mel! How are you?", "It is going to rain", "I love it", "What is this?"]
)
def test_rules_skip_pronouns_questions_and_vague_objects(text):
    assert rules.extract(text) == []


def test_rules_quote_each_sentence_of_a_longer_text_exactly():
    text = "Standup notes.\nAlice lives in Paris. Bob works at Initech! Nothing else."
    drafts = rules.extract(text)
    assert [text[d.quote_start : d.quote_end] for d in drafts] == ["Alice lives in Paris.", "Bob works at Initech!"]


def test_alert_and_verdict_events_map_to_slots():
    content = "ALERT DiskIOHigh on db-3\nvalue 97"
    [fires] = structured.extract(content, {"event": "alert", "signature": "DiskIOHigh", "host": "db-3"})
    assert fires.statement == "alert DiskIOHigh fires on db-3"
    assert content[fires.quote_start : fires.quote_end] == "ALERT DiskIOHigh on db-3"
    [verdict] = structured.extract(
        "closed: backup job", {"event": "dismissal", "signature": "DiskIOHigh", "host": "db-3", "reason": "backup job"}
    )
    assert (verdict.statement, verdict.functional) == ("alert DiskIOHigh on db-3 is benign", True)
    [real] = structured.extract("real", {"event": "incident", "signature": "DiskIOHigh", "host": "db-3"})
    assert (real.subject_key, real.predicate) == (verdict.subject_key, verdict.predicate)


def test_structured_extractor_skips_malformed_metadata_instead_of_guessing():
    assert structured.extract("x", {"event": "alert"}) == []
    assert structured.extract("x", {"event": "alert", "signature": ["not", "text"]}) == []
    assert structured.extract("x", {"facts": ["Alice likes tea", {"subject": "A"}]}) == []
    assert structured.extract("x", "not a dict") == []
    assert structured.event_problems({"event": "alert", "signature": " "}) == [
        "event 'alert' needs a non-empty text field 'signature'"
    ]
    assert structured.event_problems({"event": "alert", "signature": "S", "host": "h"}) == []


def test_runbook_step_without_signal_is_a_negated_fact():
    [step] = structured.extract(
        "checked iostat: nothing", {"event": "runbook", "signature": "S", "step": "iostat", "produced_signal": False}
    )
    assert step.negated and step.statement == "runbook step iostat for alert S not produces signal"
