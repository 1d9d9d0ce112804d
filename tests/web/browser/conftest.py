"""Browser tests: one headless Chromium (Debian's /usr/bin/chromium) and one live server for the session.

Playwright is driven through its sync API; Django sees the event loop it runs in the main
thread and would refuse ORM calls from test code, hence ``DJANGO_ALLOW_ASYNC_UNSAFE`` here
(test code only; the live server answers in its own threads). Every test gets a fresh
browser context, and ``shoot(page, name)`` writes a full-page screenshot to
``artifacts/screenshots/`` (ignored by git). A test fails if the page logged a JavaScript
error, broke the Content-Security-Policy or opened a dialog (a stored script that ran).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("MEMORYHUB_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]

pytestmark = pytest.mark.browser


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/web/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} is missing: `make system-deps` installs Debian's chromium (never `playwright install`)."
        )
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    yield browser
    browser.close()
    playwright.stop()


@dataclass
class PageWatch:
    """What a page did that a test must know about: console errors, CSP reports, dialogs."""

    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


@pytest.fixture
def watch() -> PageWatch:
    return PageWatch()


@pytest.fixture
def new_page(browser, watch, live_server):
    """``new_page(width=1280)``: a page in a fresh context whose relative URLs go to the live server."""
    contexts = []

    def make(width: int = 1280, height: int = 900):
        context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": height})
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.on("console", lambda msg: msg.type == "error" and watch.errors.append(msg.text))
        page.on("pageerror", lambda exc: watch.errors.append(str(exc)))

        def on_dialog(dialog):
            watch.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)
        return page

    yield make
    for context in contexts:
        context.close()
    assert not watch.dialogs, f"a dialog opened: {watch.dialogs}"
    assert not [e for e in watch.errors if "403" not in e and "404" not in e], f"page errors: {watch.errors}"


@pytest.fixture
def page(new_page):
    return new_page()


def shoot(page, name: str) -> Path:
    """A full-page screenshot in ``artifacts/screenshots/<name>.png``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def sign_in(page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/t/**")


@pytest.fixture
def site(transactional_db, live_server, eager_tasks):
    """The ops bank (one person per role, pending suppressions and a lesson) committed for the live server."""
    from tests.helpers.builders import build_ops_bank

    return build_ops_bank(suppressions=3)
