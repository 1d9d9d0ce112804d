"""What each page shows, and how many SQL queries it costs (pinned; growing the data must not add any)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from banks.permissions import Role
from beliefs.models import Belief, EpisodeExtraction, Evidence
from tests.helpers.builders import BASE, bank_path, prove_benign, suppress

# Page → its queries: 9 for every page (session, user, membership, two role reads, banks, tenants, the RLS
# scope with its savepoint pair here inside the test transaction, pending-review badge), then the page's own.
# Each count includes 2 queries that exist only in tests: the session is read through the maintenance connection
# (memoryhub.sessions), which in tests is the same connection, so it leaves the request role and comes back.
QUERY_COUNT = {
    "": 25,
    "beliefs/?status=active&min_proof_count=2": 16,
    "beliefs/{belief}/": 22,  # + what consolidation held back from it
    "episodes/": 16,
    "episodes/{episode}/": 17,
    "reviews/": 20,
    "mental-models/": 15,
    "anomaly/suppressions/": 18,
    "churn/plays/": 17,  # plus one per segment (segments are few)
}


def _queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200, path
    return len(queries)


def _grow(ops) -> None:
    """More of everything the pages list: beliefs with evidence, suppressions waiting for review."""
    for n in range(3):
        prove_benign(ops.bank, f"Sig{n}", f"host-{n}", start=BASE + timedelta(days=1))
        suppress(ops.bank, f"Sig{n}", f"host-{n}", at=BASE + timedelta(days=28))


@pytest.mark.parametrize("path", list(QUERY_COUNT))
def test_page_query_count_is_pinned_and_does_not_grow_with_the_data(client_as, ops, path):
    client = client_as(Role.REVIEWER)
    client.get(bank_path(ops))  # the first page of a session stores the tenant in it
    belief = Belief.objects.filter(bank=ops.bank, object="benign").first()
    url = bank_path(ops, path.format(belief=belief.pk, episode=ops.hostile_episode_id))
    before = _queries(client, url)
    _grow(ops)
    after = _queries(client, url)
    assert after == before, f"{path}: {before} queries, then {after} with more rows (N+1)"
    assert after == QUERY_COUNT[path], f"{path}: {after} queries"


def test_overview_counts_what_the_bank_holds_and_what_waits(client_as, ops):
    html = client_as(Role.VIEWER).get(bank_path(ops)).content.decode()
    assert '<dt>Pending reviews</dt><dd><a href="/t/' in html
    assert "1 distillation" in html and "1 suppression" in html
    assert f"{Belief.objects.filter(bank=ops.bank, status='active').count()} active" in html
    assert "Offer SMB accounts a training session before any discount." in html  # needs your attention


def test_belief_browser_filters_searches_and_sorts(client_as, ops):
    client = client_as(Role.VIEWER)
    html = client.get(bank_path(ops, "beliefs/?q=benign")).content.decode()
    assert "alert DiskLatencyHigh on db-01 is benign" in html and "fires on" not in html
    html = client.get(bank_path(ops, "beliefs/?min_proof_count=99")).content.decode()
    assert "No belief matches these filters." in html
    html = client.get(bank_path(ops, "beliefs/?status=contested")).content.decode()
    assert "No belief matches these filters." in html
    html = client.get(bank_path(ops, "beliefs/?min_confidence=abc")).content.decode()
    assert 'class="error' in html  # a bad filter is said, not a 500
    rows = client.get(bank_path(ops, "beliefs/?sort=subject")).content.decode()
    assert rows.index("alert DiskLatencyHigh fires on db-01") < rows.index("alert DiskLatencyHigh on db-01 is benign")


def test_belief_page_highlights_every_quote_inside_its_episode(client_as, ops):
    belief = Belief.objects.get(bank=ops.bank, object="benign")
    html = client_as(Role.VIEWER).get(bank_path(ops, f"beliefs/{belief.pk}/")).content.decode()
    evidence = Evidence.objects.filter(belief=belief)
    assert html.count('<mark class="quote">') == evidence.count() == 4
    for e in evidence:
        assert f'href="/t/{ops.tenant.slug}/banks/ops/episodes/{e.episode_id}/#quote-{e.pk}"' in html
    assert "Confidence over time" in html and "<svg" in html and "v1 · Formed" in html
    assert "Suppressions <span" in html and "DiskLatencyHigh on db-01" in html


def test_episode_page_marks_the_quotes_with_anchors_and_lists_the_beliefs(client_as, ops):
    e = Evidence.objects.filter(bank=ops.bank, stance="supports").first()
    html = client_as(Role.VIEWER).get(bank_path(ops, f"episodes/{e.episode_id}/")).content.decode()
    assert f'<mark class="quote" id="quote-{e.pk}">' in html
    assert e.belief.statement in html


def test_episode_page_says_when_the_episode_was_extracted_or_that_it_waits(client_as, ops):
    client = client_as(Role.VIEWER)
    waiting = ops.hostile_episode_id  # retained inside the test transaction: its extraction never ran
    extracted = Evidence.objects.filter(bank=ops.bank, stance="supports").first().episode_id
    when = EpisodeExtraction.objects.get(episode_id=extracted).extracted_at
    html = client.get(bank_path(ops, f"episodes/{extracted}/")).content.decode()
    assert f"<dt>Extracted</dt><dd>{when:%Y-%m-%d %H:%M}</dd>" in html
    html = client.get(bank_path(ops, f"episodes/{waiting}/")).content.decode()
    assert "<dt>Extracted</dt><dd>waiting</dd>" in html and "Not extracted yet." in html


def test_episode_explorer_filters_by_source_text_and_flags(client_as, ops):
    client = client_as(Role.VIEWER)
    html = client.get(bank_path(ops, "episodes/?source=crm")).content.decode()
    assert "Training session kept initech" in html and "Analyst closed" not in html
    html = client.get(bank_path(ops, "episodes/?q=initech")).content.decode()
    assert "Training session kept initech" in html
    html = client.get(bank_path(ops, "episodes/?flagged=true")).content.decode()
    assert "No episode matches these filters." in html or "badge-flag" in html


def test_recall_playground_returns_items_with_channels_and_the_budget(client_as, ops):
    html = client_as(Role.VIEWER).get(
        bank_path(ops, "recall/?query=is+DiskLatencyHigh+on+db-01+benign&budget_tokens=200"
                  "&channels=semantic&channels=keyword&channels=graph&channels=temporal"
                  "&kinds=episode&kinds=belief")
    ).content.decode()  # fmt: skip
    assert "alert DiskLatencyHigh on db-01 is benign" in html
    assert 'class="meter"' in html and "of 200 tokens" in html
    assert "semantic #" in html


def test_mental_model_create_refresh_delete_by_a_bank_admin(client_as, ops):
    client = client_as(Role.BANK_ADMIN)
    client.post(
        bank_path(ops, "mental-models/"),
        {"name": "benign", "question": "Which alerts are benign?", "object": "benign", "max_beliefs": 5},
    )
    html = client.get(bank_path(ops, "mental-models/benign/")).content.decode()
    assert "alert DiskLatencyHigh on db-01 is benign" in html and "badge-answered" in html
    duplicate = client.post(
        bank_path(ops, "mental-models/"), {"name": "benign", "question": "again?", "max_beliefs": 5}
    )
    assert "already has a mental model of that name" in duplicate.content.decode()
    assert client.post(bank_path(ops, "mental-models/benign/"), {"action": "refresh"}).status_code == 302
    assert client.post(bank_path(ops, "mental-models/benign/"), {"action": "delete"}).status_code == 302
    assert client.get(bank_path(ops, "mental-models/benign/")).status_code == 404


def test_overview_shows_the_recall_budget_agents_used_through_the_api(client_as, ops):
    from rest_framework.test import APIClient

    from banks.services.api_keys import api_key_issue

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_issue(tenant=ops.tenant, name='agent').raw_key}")
    for budget in (100, 300):
        response = api.post("/api/v1/banks/ops/recall", {"query": "disk latency on db-01", "budget_tokens": budget},
                            format="json")  # fmt: skip
        assert response.status_code == 200
    used = sum(api.post("/api/v1/banks/ops/recall", {"query": "disk latency on db-01", "budget_tokens": b},
                        format="json").json()["tokens_used"] for b in (100, 300))  # fmt: skip
    html = client_as(Role.VIEWER).get(bank_path(ops)).content.decode()
    assert f"(4 recalls through the API, {2 * used} of 800 tokens)" in html
    assert f"<strong>{round(100 * 2 * used / 800)}%</strong> of the token budgets filled" in html


def test_suppression_log_shows_citations_and_the_review_outcome(client_as, ops):
    client = client_as(Role.REVIEWER)
    client.post(bank_path(ops, f"reviews/{ops.suppression.pk}/decide"), {"decision": "overturn", "comment": "real one"})
    html = client.get(bank_path(ops, "anomaly/suppressions/")).content.decode()
    assert "DiskLatencyHigh</strong> on db-01" in html
    assert "backup window, week 4" in html  # a cited quote: the analyst's own words
    assert "badge-overturned" in html and "real one" in html


def test_churn_plays_show_k_of_n_with_wilson_intervals_and_open_interventions(client_as, ops):
    from workloads.churn import intervention_record, interventions_score, outcome_record

    start = BASE - timedelta(days=200)
    for n, result in enumerate(["retained", "retained", "churned"]):
        intervention_record(bank=ops.bank, account=f"acct-{n}", segment="SMB", play="training-session",
                            occurred_at=start)  # fmt: skip
        outcome_record(bank=ops.bank, account=f"acct-{n}", result=result, occurred_at=start + timedelta(days=30),
                       event_id=f"e-{n}")  # fmt: skip
    interventions_score(bank=ops.bank, now=start + timedelta(days=120))
    intervention_record(bank=ops.bank, account="acct-open", segment="SMB", play="exec-review",
                        occurred_at=BASE + timedelta(days=365))  # fmt: skip
    html = client_as(Role.VIEWER).get(bank_path(ops, "churn/plays/")).content.decode()
    assert "<h2>SMB</h2>" in html and "2 of 3" in html and "67%" in html
    assert "21% – 94%" in html  # Wilson 95% for 2 of 3
    assert "acct-open" in html and "exec-review" in html
