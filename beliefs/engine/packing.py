"""Greedy packing of ranked items into a hard token budget, trimming long items."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from beliefs.engine.entities import entity_key, extract_entities

T = TypeVar("T")

MIN_TRIM_SOURCE_TOKENS = 64  # only items at least this long are trimmed rather than skipped
MIN_TRIM_TOKENS = 24  # a trimmed passage shorter than this carries too little to be worth it
ELLIPSIS = "…"
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Packing:
    chosen: list
    tokens_used: int
    dropped: int
    trimmed: int = 0


def pack_greedy(
    items: Sequence[T],
    *,
    budget_tokens: int,
    cost: Callable[[T], int],
    trim: Callable[[T, int], T | None] | None = None,
) -> Packing:
    """Take items in rank order while they fit. An item that does not fit is trimmed to
    the remaining budget when ``trim`` can (returning a smaller item), else skipped.

    Never returns more than ``budget_tokens`` tokens. ``dropped`` counts the candidates
    the budget left out entirely.
    """
    chosen = []
    used = dropped = trimmed = 0
    for item in items:
        tokens = cost(item)
        if used + tokens <= budget_tokens:
            chosen.append(item)
            used += tokens
            continue
        shorter = trim(item, budget_tokens - used) if trim is not None else None
        if shorter is not None and used + cost(shorter) <= budget_tokens:
            chosen.append(shorter)
            used += cost(shorter)
            trimmed += 1
        else:
            dropped += 1
    return Packing(chosen=chosen, tokens_used=used, dropped=dropped, trimmed=trimmed)


def best_passage(text: str, *, query: str, max_tokens: int, count_tokens: Callable[[str], int]) -> str | None:
    """The run of sentences of ``text`` that shares most words with ``query`` and fits in
    ``max_tokens`` (ellipses mark the cuts), or ``None`` when nothing useful fits."""
    if max_tokens < MIN_TRIM_TOKENS:
        return None
    wanted = {word.lower() for word in _WORD.findall(query) if len(word) > 2}
    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    costs = [count_tokens(s) + 1 for s in sentences]
    best: tuple[int, int, int] | None = None  # (score, start, end)
    for start in range(len(sentences)):
        used = 2  # room for the ellipses
        hits: set[str] = set()
        for end in range(start, len(sentences)):
            used += costs[end]
            if used > max_tokens:
                break
            hits |= wanted & {w.lower() for w in _WORD.findall(sentences[end])}
            score = len(hits)
            if best is None or score > best[0] or (score == best[0] and end - start > best[2] - best[1]):
                best = (score, start, end)
    if best is None:
        return None
    _, start, end = best
    passage = " ".join(sentences[start : end + 1])
    if start > 0:
        passage = f"{ELLIPSIS} {passage}"
    if end < len(sentences) - 1:
        passage = f"{passage} {ELLIPSIS}"
    while passage and count_tokens(passage) > max_tokens:  # tokenisation is not additive at the joins
        passage = passage[: int(len(passage) * 0.9)]
    return passage or None


def with_neighbours(order, texts, subjects, tokens, previous, following, short: int) -> list[int]:
    """``order`` with, right after each item, its thread neighbours (``previous``/``following`` positions, -1 none)
    that are short (at most ``short`` tokens) and name an entity the item names, besides who is speaking: the
    question or answer one turn away that makes a packed turn readable. Each position appears once, at its
    first place."""
    keys: dict[int, set[str]] = {}

    def named(i: int) -> set[str]:
        if i not in keys:
            speakers = {entity_key(subject.rsplit(":", 1)[-1]) for subject in (subjects[i],) if subject}
            keys[i] = {entity.key for entity in extract_entities(texts[i])} - speakers
        return keys[i]

    placed: set[int] = set()
    result: list[int] = []
    for i in (int(x) for x in order):
        if i in placed:
            continue
        placed.add(i)
        result.append(i)
        for j in (int(previous[i]), int(following[i])):
            if j < 0 or j in placed or tokens[j] > short:
                continue
            if named(i) & named(j):
                placed.add(j)
                result.append(j)
    return result
