"""Every dashboard page loads in Chromium with no script error or CSP violation, and is screenshotted."""

from __future__ import annotations

from playwright.sync_api import expect

from banks.permissions import Role
from tests.helpers.builders import PASSWORD
from tests.web.browser.conftest import shoot, sign_in

PAGES = [
    ("12-episode-list", "episodes/", "Episodes"),
    ("13-mental-models", "mental-models/", "Mental models"),
    ("14-suppression-log", "anomaly/suppressions/", "Anomaly suppressions"),
    ("15-churn-plays", "churn/plays/", "Churn plays by segment"),
    ("16-review-decided", "reviews/?view=decided", "Review queue"),
]


def test_every_page_loads_without_script_errors_or_csp_violations(page, site, watch):
    from beliefs.services.mental_models import mental_model_create

    mental_model_create(bank=site.bank, name="benign-alerts", question="Which alerts are benign?",
                        belief_filter={"object": "benign"})  # fmt: skip
    sign_in(page, site.users[Role.TENANT_ADMIN].username, PASSWORD)
    base = f"/t/{site.tenant.slug}/banks/{site.bank.slug}/"
    for name, path, heading in PAGES:
        page.goto(base + path)
        expect(page.get_by_role("heading", name=heading, level=1)).to_be_visible()
        assert page.evaluate("typeof window.htmx") == "object", "htmx did not load"
        shoot(page, name)
    page.goto(base + "mental-models/benign-alerts/")
    expect(page.locator("main")).to_contain_text("alert DiskLatencyHigh on db-01 is benign")
    shoot(page, "17-mental-model")
    page.goto("/accounts/password/")
    shoot(page, "18-password-change")
    assert watch.errors == [], watch.errors  # a CSP violation is a console error
