"""Decisions in the review queue go through the API's service: same rows, same effects, same refusals."""

from __future__ import annotations

import re
from datetime import timedelta

from rest_framework.test import APIClient

from audit.models import AuditEvent
from banks.permissions import Role
from beliefs.models import Belief, BeliefVersion, Evidence, Play
from beliefs.services.recall import RecallOptions, recall
from reviews.models import ReviewItem
from tests.helpers.builders import BASE, bank_path, build_ops_bank
from workloads.anomaly import triage


def _rows(item: ReviewItem) -> dict:
    """Everything a decision writes, without ids and clocks: the item, its audit event, the belief's change."""
    item.refresh_from_db()
    audit = AuditEvent.objects.get(target=f"review_item:{item.pk}")
    belief = Belief.objects.get(pk=item.belief_id)
    version = BeliefVersion.objects.filter(belief=belief).order_by("-version").first()
    contra = Evidence.objects.get(belief=belief, stance="contradicts")
    return {
        "item": (item.status, item.comment, item.decided_by),
        "audit": (audit.actor, audit.action, audit.details, audit.bank_id),
        "belief": (belief.status, round(belief.confidence, 6), belief.proof_count, belief.contradiction_count),
        "version": (version.cause, version.new_status),
        "evidence": (contra.weight, contra.quote.replace(str(item.pk), "#").replace(item.triage.target, "HOST")),
    }


def test_an_overturn_in_the_browser_leaves_the_same_rows_as_through_the_api(db):
    ops = build_ops_bank(suppressions=2)
    web_item, api_item = ReviewItem.objects.filter(bank=ops.bank, kind="suppression").order_by("id")
    reviewer = ops.users[Role.REVIEWER]

    web = APIClient()
    web.force_login(reviewer)
    response = web.post(bank_path(ops, f"reviews/{web_item.pk}/decide"), {"decision": "overturn", "comment": "real"})
    assert response.status_code == 302

    api = APIClient()
    api.force_login(reviewer)  # the same person, through the API with a session
    response = api.post(f"/api/v1/banks/ops/review-items/{api_item.pk}/overturn", {"comment": "real"}, format="json")
    assert response.status_code == 200, response.content

    web_rows, api_rows = _rows(web_item), _rows(api_item)
    assert web_rows == api_rows
    assert web_rows["item"] == ("overturned", "real", f"user:{reviewer.username}")
    assert web_rows["belief"][0] == "contested" and web_rows["version"][0] == "reviewed"
    # The overturn takes effect: the next alert on that host is investigated, with the reason.
    nxt = triage(bank=ops.bank, signature="DiskLatencyHigh", target="db-01", value=401, now=BASE + timedelta(days=28))
    assert nxt.decision == "investigate" and any("contested" in reason for reason in nxt.reasons)


def test_accepting_a_lesson_in_the_browser_makes_a_recalled_play(client_as, ops):
    response = client_as(Role.REVIEWER).post(
        bank_path(ops, f"reviews/{ops.lesson.pk}/decide"), {"decision": "accept"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200 and f'id="item-{ops.lesson.pk}"' in html and "accepted" in html
    play = Play.objects.get(bank=ops.bank, review_item=ops.lesson)
    result = recall(
        bank=ops.bank,
        query="training session for SMB accounts",
        budget_tokens=300,
        options=RecallOptions(kinds=("play",)),
    )
    assert [item.item_id for item in result.items] == [play.pk]


def test_the_counts_follow_a_decision_without_a_reload(client_as, ops):
    """The queue's "N pending", its kind tabs and the sidebar badge come back with the decided item (out of band)."""
    client = client_as(Role.REVIEWER)
    queue = client.get(bank_path(ops, "reviews/?kind=distillation")).content.decode()
    assert "<span data-pending-count>2</span> pending" in queue
    assert re.search(r'id="nav-badge-pending_reviews"[^>]*>2</span>', queue)
    response = client.post(
        bank_path(ops, f"reviews/{ops.lesson.pk}/decide"),
        {"decision": "accept"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="http://testserver" + bank_path(ops, "reviews/?kind=distillation"),
    )
    html = response.content.decode()
    assert f'id="item-{ops.lesson.pk}"' in html
    summary = re.search(r'<p[^>]*id="review-pending-summary"[^>]*hx-swap-oob="true"[^>]*>(.*?)</p>', html, re.S)
    assert summary and "<span data-pending-count>1</span> pending" in summary.group(1)
    badge = re.search(r'<span[^>]*id="nav-badge-pending_reviews"[^>]*hx-swap-oob="true"[^>]*>(\d+)</span>', html)
    assert badge and badge.group(1) == "1"
    tabs = re.search(r'<nav[^>]*id="review-kind-tabs"[^>]*hx-swap-oob="true"[^>]*>(.*?)</nav>', html, re.S).group(1)
    assert 'href="?kind=distillation" aria-current="page">Distilled lesson (0)' in tabs
    assert "Suppression (1)" in tabs and "All (1)" in tabs
    rejected = client.post(  # the last one: the badge hides instead of showing 0
        bank_path(ops, f"reviews/{ops.suppression.pk}/decide"),
        {"decision": "reject", "comment": "not benign"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert re.search(r'<span[^>]*id="nav-badge-pending_reviews"[^>]*hidden[^>]*>0</span>', rejected)


def test_a_rejection_needs_a_reason_and_nothing_changes_without_one(client_as, ops):
    client = client_as(Role.REVIEWER)
    response = client.post(
        bank_path(ops, f"reviews/{ops.lesson.pk}/decide"), {"decision": "reject"}, HTTP_HX_REQUEST="1"
    )
    assert response.status_code == 200 and "A rejection needs a reason" in response.content.decode()
    ops.lesson.refresh_from_db()
    assert ops.lesson.status == "pending"
    client.post(bank_path(ops, f"reviews/{ops.lesson.pk}/decide"), {"decision": "reject", "comment": "too vague"})
    ops.lesson.refresh_from_db()
    assert (ops.lesson.status, ops.lesson.comment) == ("rejected", "too vague")
    assert not Play.objects.filter(bank=ops.bank).exists()


def test_bulk_accept_accepts_the_selection_and_reports_what_it_skipped(db):
    ops = build_ops_bank(suppressions=2)
    first, second = ReviewItem.objects.filter(bank=ops.bank, kind="suppression").order_by("id")
    reviewer = APIClient()
    reviewer.force_login(ops.users[Role.REVIEWER])
    reviewer.post(bank_path(ops, f"reviews/{ops.lesson.pk}/decide"), {"decision": "reject", "comment": "no"})
    response = reviewer.post(
        bank_path(ops, "reviews/bulk-accept"), {"item": [first.pk, second.pk, ops.lesson.pk]}, follow=True
    )
    assert "Accepted 2 items. Skipped 1 already decided or unknown" in response.content.decode()
    assert set(ReviewItem.objects.filter(pk__in=[first.pk, second.pk]).values_list("status", flat=True)) == {"accepted"}
    assert AuditEvent.objects.filter(action="review.accept", bank=ops.bank).count() == 2


def test_decided_items_stay_browsable_with_who_when_and_why(client_as, ops):
    client = client_as(Role.REVIEWER)
    client.post(bank_path(ops, f"reviews/{ops.lesson.pk}/decide"), {"decision": "reject", "comment": "not proven"})
    html = client.get(bank_path(ops, "reviews/?view=decided")).content.decode()
    assert "not proven" in html and f"user:{ops.users[Role.REVIEWER].username}" in html
    pending = client.get(bank_path(ops, "reviews/")).content.decode()
    assert f'id="item-{ops.lesson.pk}"' not in pending and f'id="item-{ops.suppression.pk}"' in pending


def test_the_api_applies_the_same_roles_to_people(ops):
    viewer, reviewer = APIClient(), APIClient()
    viewer.force_login(ops.users[Role.VIEWER])
    reviewer.force_login(ops.users[Role.REVIEWER])
    url = f"/api/v1/banks/ops/review-items/{ops.lesson.pk}/reject"
    refused = viewer.post(url, {"comment": "no"}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    assert reviewer.post(url, {"comment": "no"}, format="json").json()["status"] == "rejected"
