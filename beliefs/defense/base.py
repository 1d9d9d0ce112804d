"""What a detector is: a pattern, the part of the match that is the value, and the checks it must pass."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from beliefs.defense.validators import token_body_placeholder


@dataclass(frozen=True)
class Detector:
    """One kind of sensitive value.

    ``keywords`` are lowercase literals one of which must occur in the text for the pattern to be
    tried at all (a cheap prefilter); ``validate`` sees the value, ``check`` the text and the value's
    span (for context that must or must not be near it); ``strong`` marks a distinctive fixed prefix,
    so the detector is also tried on text with whitespace removed (a token split across lines).
    """

    kind: str
    category: str  # "credential", "private_key", "pii", "network"
    pattern: re.Pattern
    validate: Callable[[str], bool] | None = None
    strong: bool = False
    group: str | int | tuple[str, ...] = 0  # the value's group; the first one that matched, for a tuple
    keywords: tuple[str, ...] = ()
    check: Callable[[str, int, int], bool] | None = None
    # Spans found by code instead of ``pattern`` (faster where a literal such as ``@`` anchors the value).
    finder: Callable[[str], Iterable[tuple[int, int]]] | None = None
    prefixes: tuple[str, ...] = ()  # case-sensitive fixed prefixes, for tokens split by whitespace
    # The pattern starts where one of the keywords occurs: tried only there (labels such as ``password``).
    anchored: bool = False
    # A cheap pattern the text must contain before ``pattern`` is tried (the value's skeleton).
    precheck: re.Pattern | None = None
    # Every match contains a match of ``precheck`` (or, without one, one of ``keywords``) and has a bounded
    # length: the pattern is run only in the windows around those, with the same results as over the whole text.
    windowed: bool = False
    # Every match starts where one of ``keywords`` occurs, or at most ``lead`` characters before one: tried only
    # there (matches do not overlap, as in a scan).
    at_keywords: bool = False
    lead: int = 0
    # Every match holds this many characters with no whitespace between them (a long token): a text whose
    # whitespace-separated pieces are all shorter is skipped (most prose). Its precheck must match only inside such
    # a stretch (a run of one character class without whitespace): it is run only in those.
    min_run: int = 0


def token(
    kind: str, regex: str, *keywords: str, strong: bool = True, flags: int = 0, anchored: bool = True
) -> Detector:
    """A provider credential with a fixed prefix; a body of ``xxxx`` or ``****`` is a documentation placeholder.

    With ``anchored`` (the default) the keywords are the prefixes the pattern starts with, so it is only
    tried where one occurs."""
    prefix = min(len(k) for k in keywords) if keywords else 0
    return Detector(
        kind,
        "credential",
        re.compile(regex, flags),
        validate=lambda value: not token_body_placeholder(value, prefix),
        strong=strong,
        keywords=tuple(k.lower() for k in keywords),
        prefixes=tuple(k for k in keywords if len(k) >= 3) if strong else (),
        anchored=anchored,
    )


# A run of digits ("415" in "(415) 555-0132").
DIGIT_RUN = re.compile(r"\d+")


def near(text: str, start: int, words: re.Pattern, before: int = 40, after: int = 0) -> bool:
    """Whether ``words`` occurs in the ``before`` characters ahead of ``start`` (or ``after`` characters after)."""
    window = text[max(0, start - before) : start]
    return bool(words.search(window)) or bool(after and words.search(text[start : start + after]))
