"""What each page shows, and how many SQL queries it costs (pinned; growing the data must not add any)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from banks.permissions import Role
from beliefs.models import Belief, Evidence
from tests.web.builders import BASE, prove_benign, suppress
from tests.web.conftest import bank_path

# Page → its queries: 9 for every page (session, user, membership, two role reads, banks, tenants, the RLS
# scope with its savepoint pair here inside the test transaction, pending-review badge), then the page's own.
QUERY_COUNT = {
    "": 21,
    "beliefs/?status=active&min_proof_count=2": 14,
    "beliefs/{belief}/": 19,
    "episodes/": 14,
    "episodes/{episode}/": 15,
    "reviews/": 18,
    "mental-models/": 13,
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
