"""Whether an instruction-like phrase is mentioned rather than given: "attacks such as 'ignore previous
instructions'", "a message that says 'remember that …'", "the payload told the assistant to …".

Used by the injection rules and by ``directives`` so that text discussing attacks is not read as one.
"""

from __future__ import annotations

import re

from beliefs.defense.injection_rules import DISCUSSION, QUOTED_MENTION

_QUOTES = re.compile(r"[\"“”‘’`]|(?<!\w)'|'(?!\w)")


def open_quote(text: str, position: int) -> int | None:
    """Where the quotation that ``position`` lies in opens (within 300 characters on the same line), or None."""
    start = max(0, position - 300, text.rfind("\n", 0, position) + 1)
    opened = None
    for mark in _QUOTES.finditer(text, start, position):
        char = mark.group(0)
        if char in "“‘":
            opened = mark.start()
        elif char in "”’":
            opened = None
        else:  # straight quotes and backticks open and close alike
            opened = None if opened is not None else mark.start()
    return opened


def mentioned(text: str, position: int) -> bool:
    """Whether what starts at ``position`` is introduced as a mention rather than given as an instruction."""
    if DISCUSSION.search(text, max(0, position - 40), position):
        return True
    quote = open_quote(text, position)
    return quote is not None and bool(QUOTED_MENTION.search(text, max(0, quote - 60), quote + 1))
