"""Running a pattern only where it can match, with the results of ``pattern.finditer(text)``.

A scan of the whole text by each of some ninety patterns is most of what Memory Defense costs. Two
facts a detector can declare let most of the text be skipped without changing what is found:

- every match starts at a known position (where a keyword occurs): ``finditer_at`` tries only those;
- every match contains a cheap skeleton match and is at most ``reach`` characters long:
  ``finditer_near`` searches only the windows around the skeleton matches.

Both keep ``finditer``'s order and its rule that matches do not overlap. Patterns that can match the
empty string are not supported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

try:  # Python 3.11+
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover
    import sre_constants
    import sre_parse


@cache
def reach(pattern: re.Pattern) -> int | None:
    """How far past the start of a match attempt the engine can look (lookaheads and a final ``\\b``
    included), or None when a match has no bounded length."""
    consuming = pattern.pattern.replace("(?=", "(?:").replace("(?!", "(?:")
    widest = sre_parse.parse(consuming, pattern.flags).getwidth()[1]
    return None if widest >= sre_constants.MAXREPEAT else widest + 1


def finditer_at(pattern: re.Pattern, text: str, starts: Iterable[int]) -> Iterator[re.Match]:
    """``pattern.finditer(text)`` for a pattern whose every match starts at one of ``starts``."""
    cursor = 0
    for start in sorted(set(starts)):
        if start < cursor:
            continue
        match = pattern.match(text, start)
        if match:
            yield match
            cursor = max(match.end(), start + 1)


def finditer_near(
    pattern: re.Pattern, text: str, anchors: Iterable[tuple[int, int]], length: int
) -> Iterator[re.Match]:
    """``pattern.finditer(text)`` for a pattern whose every match overlaps one of the ``anchors`` spans (found
    with ``finditer`` of the skeleton, or every occurrence of a literal) and whose engine never looks more than
    ``length`` characters past a match's start (``reach``).

    A match overlapping the span ``(a, b)`` starts in ``[a - length, b)``; a search from there is decided by
    the text up to ``b + length``, so it is run with that end (a short scan) and gives the same matches."""
    regions: list[list[int]] = []
    for a, b in sorted(anchors):
        start, end = max(0, a - length), b
        if regions and start <= regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], end)
        else:
            regions.append([start, end])
    cursor = 0
    for start, end in regions:
        position, stop = max(cursor, start), min(len(text), end + length)
        while position < end:
            match = pattern.search(text, position, stop)
            if not match or match.start() >= end:
                break
            yield match
            cursor = position = max(match.end(), match.start() + 1)


def occurrences(text: str, word: str) -> list[int]:
    """Every position where ``word`` occurs in ``text`` (overlapping ones too)."""
    out = []
    position = text.find(word)
    while position >= 0:
        out.append(position)
        position = text.find(word, position + 1)
    return out
