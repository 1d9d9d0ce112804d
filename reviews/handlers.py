"""What deciding a review item does, per kind, registered by the apps that own the consequences.

``reviews`` sits below the memory engine and the workloads: it records decisions and never
imports the apps whose state a decision changes. Each of those registers, in its
``AppConfig.ready()``, a :class:`ReviewHandler` for the kinds it owns (the workloads app
for suppressions and distilled lessons), and may add panels to the queue page (the engine
lists contested beliefs there).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from banks.models import Bank
from reviews.models import ReviewItem

Consequence = Callable[..., object]  # called as fn(item=..., comment=..., actor=...) inside the decision's transaction


@dataclass(frozen=True)
class ReviewHandler:
    """The consequences of decisions on one kind of item; ``None`` means "nothing beyond the record".

    A kind without ``on_overturn`` cannot be overturned. A consequence may raise a
    ``MemoryHubError`` to refuse the decision: nothing of it is kept.
    """

    on_accept: Consequence | None = None
    on_reject: Consequence | None = None
    on_overturn: Consequence | None = None
    #: What a reviewer sees next to items of this kind: ``fn(bank=, items=) -> {item id: context}``.
    support: Callable[..., dict[int, dict]] | None = None


_handlers: dict[str, ReviewHandler] = {}
_queue_panels: list[Callable[..., dict]] = []


def register_review_handler(kind: str, handler: ReviewHandler) -> None:
    """Say what deciding items of ``kind`` does (once per kind; the same handler again is a no-op)."""
    if kind not in ReviewItem.Kind.values:
        raise ValueError(f"unknown review item kind {kind!r}")
    if _handlers.get(kind, handler) != handler:
        raise ValueError(f"review items of kind {kind!r} already have a handler")
    _handlers[kind] = handler


def review_handler(kind: str) -> ReviewHandler:
    return _handlers.get(kind, ReviewHandler())


def register_queue_panel(panel: Callable[..., dict]) -> None:
    """Add ``panel(bank=...) -> context`` to the review queue page (e.g. contested beliefs next to the queue)."""
    if panel not in _queue_panels:
        _queue_panels.append(panel)


def queue_panels(*, bank: Bank) -> dict:
    context: dict = {}
    for panel in _queue_panels:
        context.update(panel(bank=bank))
    return context


def item_support(*, bank: Bank, items: list[ReviewItem]) -> dict[int, dict]:
    """Each item's context from its kind's handler (one call per kind on the page, however many items)."""
    support: dict[int, dict] = {}
    for kind in {item.kind for item in items}:
        handler = review_handler(kind)
        if handler.support is not None:
            support.update(handler.support(bank=bank, items=[item for item in items if item.kind == kind]))
    return support
