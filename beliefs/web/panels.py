"""Sections that other apps add to the engine's pages (the bank overview, a belief's page).

The engine does not import the workloads that build on it. A workload that has something
to show on an engine page registers a :class:`Panel` in its ``AppConfig.ready()``: a template
and a function that returns its context (reads through the workload's own selectors). The
page renders every registered panel in order; a panel template reads its data as ``panel``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

PAGES = ("bank-overview", "belief-detail")


@dataclass(frozen=True)
class Panel:
    template: str
    context: Callable[..., dict]  # called with the page's keyword arguments (``bank``; ``belief`` on a belief page)


_panels: dict[str, list[Panel]] = {page: [] for page in PAGES}


def register_panel(page: str, panel: Panel) -> None:
    """Show ``panel`` on ``page`` (one of :data:`PAGES`); registering the same panel twice is a no-op."""
    if panel not in _panels[page]:
        _panels[page].append(panel)


def page_panels(page: str, **kwargs) -> list[dict]:
    """``[{"template": ..., **context}]`` for every panel of ``page``, in registration order."""
    return [{"template": panel.template, **panel.context(**kwargs)} for panel in _panels[page]]
