"""Greedy packing of ranked items into a hard token budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Packing:
    chosen: list
    tokens_used: int
    dropped: int


def pack_greedy(items: Sequence[T], *, budget_tokens: int, cost: Callable[[T], int]) -> Packing:
    """Take items in rank order while they fit; skip one that does not and try the next.

    Never returns more than ``budget_tokens`` tokens. Items costing nothing are still
    counted as chosen. ``dropped`` counts the candidates the budget left out.
    """
    chosen = []
    used = 0
    dropped = 0
    for item in items:
        tokens = cost(item)
        if used + tokens <= budget_tokens:
            chosen.append(item)
            used += tokens
        else:
            dropped += 1
    return Packing(chosen=chosen, tokens_used=used, dropped=dropped)
