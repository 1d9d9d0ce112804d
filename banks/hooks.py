"""How the apps above ``banks`` take part in a bank's life, registered from their ``AppConfig.ready``.

``banks`` sits below the memory engine in the import contract, so it never imports it. What the
engine must do or show when a bank changes is registered here instead:

- a **policy-change handler** runs after a bank's policy is saved and may start follow-up work
  (the engine starts a Memory Defense re-scan when the policy tightens it);
- a **content counter** says what a bank holds, for the receipt a bank deletion returns;
- a **policy-page status** adds a line about running work to the bank policy page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Followup:
    """Work a policy change started: named for the API (``key``), told in one line on the dashboard."""

    key: str
    message: str
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PageNote:
    """A line on a dashboard page about work under way, with a link to follow it."""

    text: str
    url: str = ""


PolicyChangeHandler = Callable[..., "Followup | None"]  # (*, bank, before, after) -> Followup | None
ContentCounter = Callable[..., dict[str, int]]  # (*, bank) -> {"episodes": n, ...}
PolicyPageStatus = Callable[..., "PageNote | None"]  # (*, bank) -> PageNote | None

_policy_change_handlers: list[PolicyChangeHandler] = []
_content_counters: list[ContentCounter] = []
_policy_page_statuses: list[PolicyPageStatus] = []


def _register(registry: list, hook) -> None:
    if hook not in registry:  # ready() can run twice in tests that reload apps
        registry.append(hook)


def register_policy_change_handler(handler: PolicyChangeHandler) -> None:
    """Call ``handler(bank=, before=, after=)`` after every policy change; it may return a Followup."""
    _register(_policy_change_handlers, handler)


def register_content_counter(counter: ContentCounter) -> None:
    """Count what a bank holds (``counter(bank=)`` -> ``{kind: n}``) for the deletion receipt."""
    _register(_content_counters, counter)


def register_policy_page_status(status: PolicyPageStatus) -> None:
    """Show ``status(bank=)`` (a PageNote, or None) on the bank policy page."""
    _register(_policy_page_statuses, status)


def policy_changed(*, bank, before: dict, after: dict) -> list[Followup]:
    """Run every policy-change handler; the follow-ups they started."""
    results = (handler(bank=bank, before=before, after=after) for handler in _policy_change_handlers)
    return [followup for followup in results if followup is not None]


def content_counts(*, bank) -> dict[str, int]:
    """What ``bank`` holds, by kind, from every registered counter."""
    counts: dict[str, int] = {}
    for counter in _content_counters:
        counts.update(counter(bank=bank))
    return counts


def policy_page_notes(*, bank) -> list[PageNote]:
    """The notes the policy page shows for ``bank``."""
    return [note for status in _policy_page_statuses if (note := status(bank=bank))]
