"""An analyst's morning in the browser: sign in, read a belief's evidence, decide the queue."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from banks.permissions import Role
from beliefs.models import Belief, Play
from reviews.models import ReviewItem
from tests.helpers.builders import PASSWORD
from tests.web.browser.conftest import shoot, sign_in


def _bank(site) -> str:
    return f"/t/{site.tenant.slug}/banks/{site.bank.slug}/"


def test_sign_in_and_read_the_overview(page, site):
    page.goto("/")
    expect(page.get_by_role("heading", name="Sign in to MemoryHub")).to_be_visible()
    shoot(page, "01-sign-in")
    sign_in(page, site.users[Role.REVIEWER].username, PASSWORD)
    shoot(page, "02-tenant-home")
    page.get_by_role("link", name="Operations", exact=True).click()
    expect(page.get_by_role("heading", name="Operations", level=1)).to_be_visible()
    expect(page.locator(".stats")).to_contain_text("Pending reviews")
    expect(page.get_by_role("link", name=re.compile("Review queue"))).to_contain_text("4")
    shoot(page, "03-bank-overview")


def test_open_a_belief_and_follow_an_evidence_quote_to_its_episode(page, site):
    sign_in(page, site.users[Role.VIEWER].username, PASSWORD)
    page.goto(_bank(site) + "beliefs/?q=benign&sort=-proofs")
    shoot(page, "04-belief-list")
    page.get_by_role("link", name="alert DiskLatencyHigh on db-01 is benign").click()
    expect(page.get_by_role("heading", name="alert DiskLatencyHigh on db-01 is benign")).to_be_visible()
    expect(page.locator("mark.quote")).to_have_count(4)
    shoot(page, "05-belief-page")
    quote = page.locator("mark.quote").first.inner_text()
    page.locator("a.quote-link").first.click()
    expect(page).to_have_url(re.compile(r"/episodes/\d+/#quote-\d+$"))
    expect(page.locator("#episode-text mark.quote")).to_have_text(quote)
    shoot(page, "06-episode-page")


def test_accept_a_distillation_and_see_the_play_recalled(page, site):
    sign_in(page, site.users[Role.REVIEWER].username, PASSWORD)
    page.goto(_bank(site) + "reviews/?kind=distillation")
    item = page.locator(f"#item-{site.lesson.pk}")
    pending = int(page.locator("#review-pending-summary [data-pending-count]").inner_text())
    assert page.locator("#nav-badge-pending_reviews").inner_text() == str(pending)
    item.get_by_role("button", name=re.compile("^Accept")).click()
    expect(item.locator(".badge-accepted")).to_be_visible()  # swapped in place by htmx
    # The counts follow the decision without a reload: the summary, the kind tab and the sidebar badge.
    expect(page.locator("#review-pending-summary [data-pending-count]")).to_have_text(str(pending - 1))
    expect(page.locator("#nav-badge-pending_reviews")).to_have_text(str(pending - 1))
    expect(page.locator("#review-kind-tabs a[aria-current=page]").first).to_contain_text("Distilled lesson (0)")
    assert Play.objects.filter(bank=site.bank, review_item=site.lesson).count() == 1
    page.goto(_bank(site) + "recall/")
    page.get_by_role("textbox", name="Query").fill("what works for SMB accounts before a discount?")
    page.get_by_role("button", name="Recall").click()
    expect(page.locator(".recall-item .badge-kind", has_text="play")).to_have_count(1)
    expect(page.locator(".recall-item").filter(has_text="training session before any discount")).to_be_visible()
    shoot(page, "07-recall-playground")


def test_overturn_a_suppression_with_the_keyboard_and_see_the_belief_contested(page, site):
    sign_in(page, site.users[Role.REVIEWER].username, PASSWORD)
    page.goto(_bank(site) + "reviews/?kind=suppression")
    shoot(page, "08-review-queue")
    first = page.locator(".queue-item.current")
    expect(first).to_have_attribute("id", f"item-{site.suppression.pk}")
    page.keyboard.press("o")
    page.keyboard.type("the disk really was failing")
    page.keyboard.press("Enter")
    expect(page.locator(f"#item-{site.suppression.pk} .badge-overturned")).to_be_visible()
    site.suppression.refresh_from_db()
    assert (site.suppression.status, site.suppression.comment) == ("overturned", "the disk really was failing")
    page.goto(_bank(site) + f"beliefs/{site.suppression.belief_id}/")
    expect(page.locator("header .badge-contested")).to_be_visible()
    expect(page.locator(".evidence.contra")).to_have_count(1)
    assert Belief.objects.get(pk=site.suppression.belief_id).status == "contested"


def test_bulk_accept_two_suppressions_with_the_keyboard(page, site):
    sign_in(page, site.users[Role.REVIEWER].username, PASSWORD)
    page.goto(_bank(site) + "reviews/?kind=suppression")
    pending = list(ReviewItem.objects.filter(bank=site.bank, kind="suppression").order_by("created_at", "id"))
    page.keyboard.press("x")  # the first item is current on load
    page.keyboard.press("j")
    page.keyboard.press("x")
    expect(page.locator(".queue-item input.select:checked")).to_have_count(2)
    page.keyboard.press("Shift+A")
    expect(page.locator(".message-success")).to_have_text("Accepted 2 items.")
    statuses = dict(ReviewItem.objects.filter(pk__in=[i.pk for i in pending]).values_list("pk", "status"))
    assert [statuses[i.pk] for i in pending] == ["accepted", "accepted", "pending"]


def test_a_viewer_is_refused_a_reviewer_action_and_another_tenant_sees_nothing(new_page, site, db):
    from tests.helpers.builders import build_ops_bank

    page = new_page()
    sign_in(page, site.users[Role.VIEWER].username, PASSWORD)
    page.goto(_bank(site) + "reviews/")
    accept = page.locator(f"#item-{site.suppression.pk}").get_by_role("button", name=re.compile("^Accept"))
    expect(accept).to_be_disabled()
    accept.evaluate("button => button.removeAttribute('disabled')")  # a tampered page still meets the server
    accept.click()
    expect(page.get_by_role("heading", name="You don't have the role for this")).to_be_visible()
    shoot(page, "09-forbidden")
    site.suppression.refresh_from_db()
    assert site.suppression.status == "pending"

    stranger = build_ops_bank(suppressions=0).users[Role.TENANT_ADMIN]
    other = new_page()
    sign_in(other, stranger.username, PASSWORD)
    response = other.goto(_bank(site) + f"beliefs/{site.suppression.belief_id}/")
    assert response.status == 404
    expect(other.get_by_role("heading", name="Not found")).to_be_visible()


def test_a_stored_script_shows_as_text_and_never_runs(page, site, watch):
    sign_in(page, site.users[Role.VIEWER].username, PASSWORD)
    for path in ("episodes/", f"episodes/{site.hostile_episode_id}/", "recall/?query=disk+note&budget_tokens=400"
                 "&channels=semantic&channels=keyword&kinds=episode"):  # fmt: skip
        page.goto(_bank(site) + path)
        expect(page.locator("main")).to_contain_text('<script>alert("xss")</script>')
        assert page.locator("main script, main img[src=x]").count() == 0
    page.wait_for_timeout(200)
    assert watch.dialogs == []
    shoot(page, "10-episode-hostile")


def test_the_overview_works_at_phone_width(new_page, site):
    page = new_page(width=390, height=844)
    sign_in(page, site.users[Role.REVIEWER].username, PASSWORD)
    page.goto(_bank(site))
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways at phone width ({width}px)"
    shoot(page, "11-overview-phone")
