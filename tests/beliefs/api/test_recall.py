import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from beliefs.models import Episode
from tests.helpers.callers import retain_texts

PLANTED = [
    "The primary database db-01 ran out of disk space after the audit log grew to 900 GB.",
    "Our cat Miso refuses to eat anything but salmon on Sundays.",
    "The ticket ZK-4471 tracks the broken SAML login for Initech.",
    "Quarterly revenue grew 12 percent, driven by the enterprise segment.",
    "Dana moved to Lisbon in May and now works remotely for the sales team.",
]


def recall(caller, query, budget=500, **extra):
    return caller.client.post(caller.url("recall"), {"query": query, "budget_tokens": budget, **extra}, format="json")


def test_semantic_channel_finds_a_paraphrase_with_no_shared_words(caller):
    retain_texts(caller.bank, PLANTED)
    body = recall(caller, "feline pet diet preferences", channels=["semantic"]).json()
    assert body["items"][0]["text"] == PLANTED[1]
    assert body["items"][0]["channels"] == ["semantic"]


def test_keyword_channel_finds_a_rare_identifier(caller):
    retain_texts(caller.bank, PLANTED)
    body = recall(caller, "ZK-4471", channels=["keyword"]).json()
    assert [item["text"] for item in body["items"]] == [PLANTED[2]]


def test_fused_recall_marks_items_found_by_both_channels(caller):
    retain_texts(caller.bank, PLANTED)
    body = recall(caller, "db-01 disk space", explain=True).json()
    top = body["items"][0]
    assert top["text"] == PLANTED[0]
    assert top["channels"] == ["graph", "keyword", "semantic"]  # db-01 is an entity too
    assert set(top["explain"]["channels"]) == {"graph", "keyword", "semantic"}
    assert top["explain"]["channels"]["semantic"]["rank"] == 1
    assert top["explain"]["rerank"]["dense"] > 0 and top["explain"]["rerank"]["lexical"] > 0


def test_items_carry_provenance_and_are_untrusted(caller):
    [episode_id] = retain_texts(
        caller.bank,
        ["Deploy of billing v7 failed on host app-3"],
        source="deploy",
        subject="service:billing",
        metadata={"run": 42},
    )
    item = recall(caller, "billing deploy").json()["items"][0]
    assert item["untrusted"] is True
    assert item["id"] == f"episode:{episode_id}" and item["kind"] == "episode"
    assert item["provenance"]["episode_ids"] == [episode_id]
    assert item["provenance"]["source"] == "deploy"
    assert item["provenance"]["subject"] == "service:billing"
    assert item["provenance"]["metadata"] == {"run": 42}
    assert item["provenance"]["occurred_at"]


def test_usage_and_budget_accounting(caller):
    retain_texts(caller.bank, PLANTED)
    body = recall(caller, "database disk", budget=40).json()
    assert body["budget_tokens"] == 40
    assert body["tokens_used"] == sum(item["tokens"] for item in body["items"]) <= 40
    assert body["candidates"] == len(body["items"]) + body["dropped_by_budget"]
    assert body["dropped_by_budget"] > 0
    assert body["usage"]["items"] == len(body["items"])
    assert body["usage"]["query_tokens"] > 0
    assert body["usage"]["elapsed_ms"] > 0


def test_budget_below_every_item_gives_an_empty_well_formed_result(caller):
    retain_texts(caller.bank, PLANTED)
    body = recall(caller, "database", budget=1).json()
    assert body["items"] == [] and body["tokens_used"] == 0 and body["dropped_by_budget"] >= 1


def test_filters_narrow_by_source_subject_and_time(caller):
    retain_texts(
        caller.bank,
        ["alert on db-01 disk"],
        source="alert",
        subject="host:db-01",
        occurred_at=_dt("2026-10-01T00:00:00Z"),
    )
    retain_texts(
        caller.bank,
        ["analyst note on db-01 disk"],
        source="analyst",
        subject="host:db-01",
        occurred_at=_dt("2026-11-01T00:00:00Z"),
    )
    retain_texts(
        caller.bank,
        ["alert on db-02 disk"],
        source="alert",
        subject="host:db-02",
        occurred_at=_dt("2026-11-02T00:00:00Z"),
    )

    def texts(filters):
        return sorted(item["text"] for item in recall(caller, "disk", filters=filters).json()["items"])

    assert texts({"source": "alert"}) == ["alert on db-01 disk", "alert on db-02 disk"]
    assert texts({"subject": ["host:db-01"]}) == ["alert on db-01 disk", "analyst note on db-01 disk"]
    assert texts({"occurred_after": "2026-10-15T00:00:00Z"}) == ["alert on db-02 disk", "analyst note on db-01 disk"]
    assert texts({"occurred_before": "2026-10-15T00:00:00Z", "source": ["alert"]}) == ["alert on db-01 disk"]


def test_as_of_hides_episodes_recorded_later(caller):
    retain_texts(caller.bank, ["first finding about the router"])
    cutoff = Episode.objects.get(bank=caller.bank).recorded_at
    retain_texts(caller.bank, ["second finding about the router"])
    body = recall(caller, "router finding", as_of=cutoff.isoformat()).json()
    assert [item["text"] for item in body["items"]] == ["first finding about the router"]


def test_tsquery_and_sql_syntax_is_plain_text(caller):
    retain_texts(caller.bank, ["drop table users was typed into the chat"])
    for query in ["'; DROP TABLE users; --", "a & b | !c:* <-> (", "!!!", ":*", "users' OR 1=1 --"]:
        response = recall(caller, query)
        assert response.status_code == 200, query
        assert {"items", "tokens_used", "budget_tokens"} <= set(response.json())
    assert Episode.objects.filter(bank=caller.bank).count() == 1


class TestBudgetProperty:
    """Property: whatever the budget and query, tokens_used <= budget_tokens and equals the items' sum."""

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        budget=st.integers(min_value=1, max_value=2000),
        query=st.text(alphabet=string.ascii_letters + string.digits + " -&|!:*'()", min_size=1, max_size=40),
    )
    def test_recall_never_exceeds_budget(self, seeded_caller, budget, query):
        body = recall(seeded_caller, query if query.strip() else "x", budget=budget).json()
        assert body["tokens_used"] <= budget
        assert body["tokens_used"] == sum(item["tokens"] for item in body["items"])


def _dt(text):
    from django.utils.dateparse import parse_datetime

    return parse_datetime(text)
