"""The literals a regular expression cannot match without: a cheap ``in`` test before running it.

For a pattern, ``required_literals`` returns a set of strings one of which occurs in every
text the pattern matches (or an empty tuple when no such set can be read off the pattern).
It reads the parsed pattern: a run of literal characters is required; an alternation is
required when each branch has its own required literal (the union is then needed).
"""

from __future__ import annotations

import re

from ahocorasick_rs import AhoCorasick

try:  # Python 3.11+
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover
    import sre_constants
    import sre_parse

_MIN = 3
# Literals common in any prose make a poor filter; a set containing one costs as much as ten rarer ones.
_COMMON = frozenset(
    "the and you your for with this that http https end call message mode role all any not are can now "
    "was were has have his her one use run to if each every".split()
)


def _long_enough(run: str) -> bool:
    """Three characters, or one outside ASCII (a CJK word or an emoji is a rare enough filter)."""
    return len(run) >= _MIN or (len(run) >= 1 and not run.isascii())


def _cost(literals: frozenset[str]) -> int:
    return sum(10 if literal.strip() in _COMMON or not _long_enough(literal.strip()) else 1 for literal in literals)


def _runs(items) -> list[str]:
    """Maximal literal runs in a parsed sequence (only consecutive LITERAL nodes)."""
    runs, current = [], []
    for op, arg in items:
        if op is sre_constants.LITERAL:
            current.append(chr(arg))
        else:
            if current:
                runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    return runs


def _required(items) -> frozenset[str] | None:
    """A set of literals one of which any match of the sequence ``items`` contains, or None."""
    best: frozenset[str] | None = None
    for run in _runs(items):
        if _long_enough(run) and (
            best is None
            or _cost(frozenset([run])) < _cost(best)
            or (_cost(frozenset([run])) == _cost(best) and len(run) > min(map(len, best)))
        ):
            best = frozenset([run])
    for op, arg in items:
        candidate = None
        if op is sre_constants.SUBPATTERN:
            candidate = _required(arg[-1])
        elif op is sre_constants.BRANCH:
            branches = [_required(branch) for branch in arg[1]]
            if all(branches):
                candidate = frozenset().union(*branches)
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and arg[0] >= 1:
            candidate = _required(arg[2])
        if candidate and (best is None or _cost(candidate) < _cost(best)):
            best = candidate
    return best


def required_literals(pattern: re.Pattern) -> tuple[str, ...]:
    if pattern.flags & re.IGNORECASE:
        return ()
    found = _required(sre_parse.parse(pattern.pattern, pattern.flags))
    return tuple(sorted(found)) if found else ()


def _whole(items) -> bool:
    """Whether ``items`` is literal text only (a run, or a group or alternation of runs): its start literals are then
    all of it, and what follows may be joined to them."""
    items = [item for item in items if item[0] is not sre_constants.AT]
    if all(op is sre_constants.LITERAL for op, _ in items):
        return True
    if len(items) != 1:
        return False
    op, arg = items[0]
    if op is sre_constants.SUBPATTERN and not arg[1] and not arg[2]:
        return _whole(arg[-1])
    if op is sre_constants.BRANCH:
        return all(_whole(branch) for branch in arg[1])
    return False


def _joined(found: frozenset[str], rest, whole: bool = True) -> frozenset[str]:
    """``found`` extended by what must follow it when one of them is a common word ("the " + "developer"), only when
    ``found`` is the whole of what precedes ``rest`` ("the (?:previous )?rules" starts with "the ", not "the rules")."""
    if not whole or not rest or not any(literal.strip() in _COMMON or len(literal) < _MIN for literal in found):
        return found
    following = _start_runs(rest)
    if not following or len(found) * len(following) > 400:
        return found
    return frozenset(literal + after for literal in found for after in following)


def _start_runs(items) -> frozenset[str] | None:
    """Literals one of which every match of the sequence ``items`` starts with, or None."""
    items = list(items)
    while items and items[0][0] is sre_constants.AT:  # zero-width (``\b``, ``^``): the match still starts here
        items = items[1:]
    run = _runs(items[:1] and items)[0] if items and items[0][0] is sre_constants.LITERAL else ""
    if run:
        rest = items[len(run) :]
        if len(run) < _MIN and rest:
            longer = _start_runs(rest)
            if longer:
                return frozenset(run + literal for literal in longer)
        return frozenset([run])
    if not items:
        return None
    op, arg = items[0]
    rest = items[1:]
    if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and arg[0] == 0 and arg[1] == 1:
        with_it, without = _start_runs(list(arg[2]) + rest), _start_runs(rest)  # ``(?:please )?…``
        return with_it | without if with_it and without else None
    if (
        op is sre_constants.IN
        and all(member is sre_constants.LITERAL for member, _ in arg)
        and (
            len(arg) <= 4 or all(not chr(c).isalnum() and chr(c) != " " for _, c in arg)  # marks: ``[\n.!?;:,(]``
        )
    ):
        following = _start_runs(rest) if rest else None  # ``["']role…``
        return frozenset(chr(c) + literal for _, c in arg for literal in (following or [""]))
    if op is sre_constants.SUBPATTERN and not arg[1] and not arg[2]:  # a group without inline flags
        found = _start_runs(arg[-1])
        return _joined(found, rest, _whole(arg[-1])) if found else None
    if op is sre_constants.BRANCH:
        branches = [_start_runs(branch) for branch in arg[1]]
        return _joined(frozenset().union(*branches), rest, _whole([items[0]])) if all(branches) else None
    if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT) and arg[0] >= 1:
        return _start_runs(arg[2])
    return None


def start_literals(pattern: re.Pattern) -> tuple[str, ...]:
    """Literals one of which every match of ``pattern`` starts with, or ``()``: each of two characters at least,
    or one that is rare in prose (punctuation such as ``<``, or outside ASCII)."""
    if pattern.flags & re.IGNORECASE:
        return ()
    found = _start_runs(sre_parse.parse(pattern.pattern, pattern.flags))
    usable = found and all(
        len(f) >= 2 or f == "\n" or not (f.isascii() and (f.isalnum() or f.isspace())) for f in found
    )
    return tuple(sorted(found)) if usable else ()


class Gated:
    """A compiled pattern tried only when the text holds one of its ``required_literals`` (one Aho-Corasick pass, a
    fraction of a search): ``search`` and ``match`` give what the pattern gives. A pattern with no such literals is
    always tried."""

    def __init__(self, pattern: re.Pattern):
        self.compiled = pattern
        self.pattern = pattern.pattern
        literals = required_literals(pattern)
        self._finder = AhoCorasick(list(literals)) if literals else None

    def _may_match(self, text: str) -> bool:
        return self._finder is None or bool(self._finder.find_matches_as_indexes(text))

    def search(self, text: str, *bounds: int) -> re.Match | None:
        return self.compiled.search(text, *bounds) if self._may_match(text) else None

    def match(self, text: str, *bounds: int) -> re.Match | None:
        return self.compiled.match(text, *bounds) if self._may_match(text) else None
