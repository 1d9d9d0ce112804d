"""Run every detector over a text and over variants that undo common evasions.

Variants (``normalise``): the text as written; Unicode-folded (NFKC, look-alikes, invisible
characters removed); URL-encoded and base64 runs decoded; quoted pieces of a string
concatenation joined; and, for detectors with a distinctive prefix, the text after each
prefix with whitespace removed. Every finding is mapped back to a span of the original text,
so redaction removes exactly what was written — including the encoded or split form — and
leaves everything around it as it was.

A detector's keywords are checked first (one lowercase copy of the text, substring tests), so
a kind whose prefix or label does not occur costs nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, replace

from ahocorasick_rs import AhoCorasick

from beliefs.defense.detectors import CATEGORY, DETECTORS, Detector
from beliefs.defense.narrow import finditer_at, finditer_near, occurrences, reach
from beliefs.defense.normalise import (
    LOOKALIKES,
    VALUE_ASCII,
    concatenations,
    decoded_runs,
    despaced,
    foldable,
    folded,
)
from beliefs.defense.validators import ip_kind

_PRIORITY = {"private_key": 0, "credential": 1, "pii": 2, "network": 3}
_GENERIC = {"high_entropy_secret", "generic_api_key", "url_token"}
# A phone-shaped number loses to a checksum-validated identifier covering the same digits.
_WEAK = {"phone_number"}
# Documentation prefixes that mark a value as public by design.
_PUBLIC = re.compile(
    r"-----BEGIN (?:PUBLIC KEY|RSA PUBLIC KEY|CERTIFICATE|PGP PUBLIC KEY BLOCK)-----[\s\S]*?-----END [A-Z ]+-----"
    r"|\bssh-(?:rsa|ed25519|dss)\s+AAAA[A-Za-z0-9+/=]+|\becdsa-sha2-nistp\d+\s+AAAA[A-Za-z0-9+/=]+"
    r"|\bpk_(?:live|test)_[A-Za-z0-9]{16,}|\bSHA256:[A-Za-z0-9+/]{43}=?|\bsha(?:256|384|512)[-:][A-Za-z0-9+/=]{40,}"
    r"|data-sitekey=\"[^\"]+\""
)
# Every match of ``_PUBLIC`` starts with one of these (so it is tried only where one occurs).
_PUBLIC_LITERALS = (
    "-----BEGIN ",
    "ssh-",
    "ecdsa-sha2-nistp",
    "pk_live_",
    "pk_test_",
    "SHA256:",
    "sha256",
    "sha384",
    "sha512",
    'data-sitekey="',
)
_PUBLIC_FINDER = AhoCorasick(_PUBLIC_LITERALS)
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")
IP_MODES = ("off", "public", "all")
DEFAULT_IP_MODE = "public"


@dataclass(frozen=True)
class Finding:
    """A sensitive value: its kind, the span of the original text it occupies, and which variant found it."""

    kind: str
    start: int
    end: int
    via: str = "plain"

    @property
    def category(self) -> str:
        return CATEGORY[self.kind]


def ip_mode(value: bool | str | None) -> str:
    """The IP-address policy as one of ``off``, ``public`` (the default) or ``all`` (``True``/``False`` accepted)."""
    if value is True:
        return "all"
    if value is False:
        return "off"
    return value if value in IP_MODES else DEFAULT_IP_MODE


def _value(match: re.Match, group) -> tuple[str | None, int, int]:
    for name in group if isinstance(group, tuple) else (group,):
        if match.group(name) is not None:
            return match.group(name), match.start(name), match.end(name)
    return None, -1, -1


_KEYWORDS = sorted({k for d in DETECTORS for k in d.keywords})
_KEYWORD_FINDER = AhoCorasick(_KEYWORDS)


class _Keywords:
    """Which detector keywords occur in a text (substring tests on one lowercase copy) and, for anchored
    detectors, where (found on demand)."""

    def __init__(self, text: str):
        self.lowered = text.lower()
        self.aligned = len(self.lowered) == len(text)
        self.present = set(_KEYWORD_FINDER.find_matches_as_strings(self.lowered, overlapping=True))
        self._text = text
        self._skeletons: dict[str, list[tuple[int, int]]] = {}  # prechecks are shared by several detectors
        self._found: dict[str, bool] = {}
        self._pieces: list[str] | None = None
        self._longest = 0

    @property
    def longest_run(self) -> int:
        """The length of the longest stretch of the text without whitespace."""
        if self._pieces is None:
            self._pieces = self._text.split()
            self._longest = max(map(len, self._pieces), default=0)
        return self._longest

    def long_runs(self, length: int) -> list[tuple[int, int]]:
        """Where the stretches without whitespace at least ``length`` long are."""
        out: list[tuple[int, int]] = []
        if self.longest_run >= length:
            cursor = 0
            for piece in self._pieces:
                if len(piece) >= length:  # (a shorter piece cannot hold it: found from the last long one)
                    start = self._text.find(piece, cursor)
                    cursor = start + len(piece)
                    out.append((start, cursor))
        return out

    def skeleton(self, precheck: re.Pattern, min_run: int = 0) -> list[tuple[int, int]]:
        """The spans ``precheck.finditer`` finds in the text; with ``min_run``, a precheck that only matches inside a
        stretch without whitespace that long is run only in those."""
        key = precheck.pattern
        if key not in self._skeletons:
            if min_run:
                self._skeletons[key] = [
                    match.span()
                    for start, end in self.long_runs(min_run)
                    for match in precheck.finditer(self._text, start, end)
                ]
            else:
                self._skeletons[key] = [match.span() for match in precheck.finditer(self._text)]
        return self._skeletons[key]

    def contains(self, precheck: re.Pattern) -> bool:
        key = precheck.pattern
        if key in self._skeletons:
            return bool(self._skeletons[key])
        if key not in self._found:
            self._found[key] = precheck.search(self._text) is not None
        return self._found[key]

    def starts(self, keywords) -> list[int]:
        return sorted({start for start, _ in self.spans(keywords)})

    def spans(self, keywords) -> list[tuple[int, int]]:
        """Every occurrence of each of ``keywords`` (empty unless lowercasing kept the text's length)."""
        if not self.aligned:
            return []
        return [
            (position, position + len(keyword))
            for keyword in keywords
            if keyword in self.present
            for position in occurrences(self.lowered, keyword)
        ]


def _spans(detector: Detector, text: str, keywords: _Keywords):
    if detector.anchored:
        starts = keywords.starts(detector.keywords)
        if starts or keywords.aligned:  # unaligned only when lowercasing changed the length: then scan it all
            for start in starts:
                match = detector.pattern.match(text, start)
                if match:
                    yield _value(match, detector.group)
            return
    if detector.finder:
        for start, end in detector.finder(text):
            yield text[start:end], start, end
        return
    for match in _matches(detector, text, keywords):
        yield _value(match, detector.group)


def _matches(detector: Detector, text: str, keywords: _Keywords):
    """``detector.pattern.finditer(text)``, run only where the detector says a match can be (``narrow``)."""
    if keywords.aligned:
        if detector.windowed:
            length = reach(detector.pattern)
            if detector.precheck:
                anchors = keywords.skeleton(detector.precheck, detector.min_run)
            else:
                anchors = keywords.spans(detector.keywords)
            return finditer_near(detector.pattern, text, anchors, length)
        if detector.at_keywords:
            starts = keywords.starts(detector.keywords)
            if detector.lead:
                starts = [start - back for start in starts for back in range(detector.lead, -1, -1) if start >= back]
            return finditer_at(detector.pattern, text, starts)
    return detector.pattern.finditer(text)


class _Plan:
    """A detector list indexed by keyword, so a run visits only the detectors whose keywords occur (in order)."""

    def __init__(self, detectors: list[Detector]):
        self.detectors = detectors
        self.always = frozenset(i for i, d in enumerate(detectors) if not d.keywords)
        self.by_keyword: dict[str, list[int]] = {}
        for i, detector in enumerate(detectors):
            for keyword in detector.keywords:
                self.by_keyword.setdefault(keyword, []).append(i)

    def applicable(self, present: set[str]) -> list[Detector]:
        chosen = set(self.always)
        for keyword in present:
            chosen.update(self.by_keyword.get(keyword, ()))
        return [self.detectors[i] for i in sorted(chosen)]


_PLANS: dict[int, _Plan] = {}


def _run(text: str, detectors, ips: str, *, covered: bool = False) -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` of what ``detectors`` find in ``text``.

    With ``covered``, a generic candidate inside a specific finding already made in this run is not checked:
    merging would give the group the specific kind and span anyway (it sorts first and outranks it). Only for
    runs whose findings keep their own spans (not decoded runs, whose findings all take the run's span)."""
    keywords = _Keywords(text)
    specific: list[tuple[int, int]] = []
    plan = _PLANS.get(id(detectors))
    if plan is None or plan.detectors is not detectors:
        plan = _PLANS[id(detectors)] = _Plan(detectors)
    found = []
    for detector in plan.applicable(keywords.present):
        if detector.category == "network" and ips == "off":
            continue
        if detector.min_run and keywords.longest_run < detector.min_run:
            continue
        # (a windowed detector's windows are its precheck's matches: with none, there is nothing to run)
        windowed = detector.windowed and keywords.aligned
        if detector.precheck and not windowed and not keywords.contains(detector.precheck):
            continue
        generic = detector.kind in _GENERIC
        for value, start, end in _spans(detector, text, keywords):
            if covered and generic and any(s <= start and end <= e for s, e in specific):
                continue
            if not value or (detector.validate and not detector.validate(value)):
                continue
            if detector.check and not detector.check(text, start, end):
                continue
            if detector.category == "network" and ips == "public" and ip_kind(value) != "public":
                continue
            found.append((detector.kind, start, end))
            if covered and not generic and end > start:
                specific.append((start, end))
    return found


def _mapped(found, index: list[int], via: str) -> list[Finding]:
    return [Finding(kind, index[start], index[end - 1] + 1, via) for kind, start, end in found if end > start]


_STRONG: list[Detector] = [
    replace(d, pattern=re.compile(d.pattern.pattern.replace(r"\b", ""), d.pattern.flags)) for d in DETECTORS if d.strong
]
_STRONG_PREFIXES = sorted({p for d in _STRONG for p in d.prefixes})
_PREFIX_FINDER = AhoCorasick(_STRONG_PREFIXES)
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-.~:$]*")
_DECODED = [d for d in DETECTORS if d.kind != "high_entropy_secret"]


_WINDOW = 160
_SPACE = re.compile(r"\s")
# A letter that is not a look-alike of a Latin one (``и``, ``ж``, ``λ``).
_OTHER_LETTER = re.compile(rf"(?![{re.escape(''.join(sorted(LOOKALIKES)))}])[^\W\d_]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _folded_findings(text: str, ips: str) -> list[Finding]:
    """Detectors re-run on the Unicode-folded text, only around the places folding changed (with room for labels)."""
    if not foldable(text):
        return []  # (no character that folding would turn into ASCII, no invisible one between ASCII)
    variant, index = folded(text)
    if variant == text:
        return []
    # Only changes that can complete an ASCII value matter: a look-alike that became ASCII, or an invisible
    # character dropped from between ASCII characters (not a Persian ZWNJ or an emoji joiner).
    # ASCII is copied as it is, so both happen only where the text has runs of other characters.
    # A look-alike letter inside a word of its own script (Russian or Greek prose: the run of other characters
    # stands between non-letters and holds letters that look like no Latin one) is that language, not an evasion.
    changed = []
    for run in _NON_ASCII.finditer(text):
        first, last = bisect_left(index, run.start()), bisect_left(index, run.end())
        own_script = (
            not (run.start() and text[run.start() - 1].isalnum())
            and not (run.end() < len(text) and text[run.end()].isalnum())
            and _OTHER_LETTER.search(text, run.start(), run.end()) is not None
        )
        changed += [
            i
            for i in range(first, last)
            if variant[i] != text[index[i]]
            and variant[i] in VALUE_ASCII
            and not (own_script and text[index[i]] in LOOKALIKES)
        ]
        changed += [
            i
            for i in range(max(1, first), min(len(index), last + 1))
            if index[i] - index[i - 1] > 1 and variant[i].isascii() and variant[i - 1].isascii()
        ]
    if not changed:
        return []
    out: list[Finding] = []
    for start, end in _windows(sorted(changed), variant):
        found = _run(variant[start:end], DETECTORS, ips, covered=True)
        while end < len(variant) and any(e == end - start and "\n" in variant[start + s : end] for _, s, e in found):
            # (a value over several lines reaches the window's end, a key block say: it may go on past it)
            end = _token_end(variant, min(len(variant), end + 2 * _WINDOW))
            found = _run(variant[start:end], DETECTORS, ips, covered=True)
        out += _mapped(found, index[start:end], "unicode")
    return out


def _token_start(text: str, position: int) -> int:
    """The start of the stretch without whitespace that holds ``position`` (a window never cuts a token); whitespace
    as ``_token_end``'s ``\\s`` reads it (``str.isspace``)."""
    while position > 0 and not text[position - 1].isspace():
        position -= 1
    return position


def _token_end(text: str, position: int) -> int:
    """The end of the stretch without whitespace that holds ``position``."""
    after = _SPACE.search(text, position)
    return after.start() if after else len(text)


def _windows(points: list[int], text: str) -> list[tuple[int, int]]:
    """Where to re-run the detectors: ``_WINDOW`` characters either side of each changed character (room for a
    label), widened to whole tokens: a window that cut a long token would find only its first part, and a cut
    base64 run no longer decodes as the text it is."""
    spans: list[tuple[int, int]] = []
    for point in points:
        start = _token_start(text, max(0, point - _WINDOW))
        end = _token_end(text, min(len(text), point + _WINDOW))
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


def _split(text: str, ips: str, covered: list[Finding]) -> list[Finding]:
    """Tokens with a distinctive prefix written across spaces or lines (``glpat-abc def…``)."""
    out = []
    for _, start, prefix_end in _PREFIX_FINDER.find_matches_as_indexes(text, overlapping=True):
        if any(f.start <= start < f.end for f in covered):
            continue
        gap = _TOKEN_RUN.match(text, prefix_end).end()
        if gap >= len(text) or not text[gap].isspace() or gap - start > 120:
            continue  # the token runs on unbroken (the plain pass saw it), or this is not a token
        window, index = despaced(text, start, start + 300)
        for kind, s, e in _run(window, _STRONG, ips):
            if s == 0 and index[e - 1] >= gap:
                out.append(Finding(kind, index[s], index[e - 1] + 1, "split"))
    return out


def scan(text: str, *, ip_addresses: bool | str | None = None) -> list[Finding]:
    """Sensitive spans of ``text`` (merged where they overlap), each with its kind."""
    if not text:
        return []
    ips = ip_mode(ip_addresses)
    findings = [Finding(k, s, e) for k, s, e in _run(text, DETECTORS, ips, covered=True)]
    if not text.isascii():
        findings += _folded_findings(text, ips)
    for start, end, decoded, how in decoded_runs(text):
        # Decoded in place: the label before the run ("AWS_SECRET_ACCESS_KEY: <base64>") still gives it context.
        line = text[max(0, start - 80) : start].rsplit("\n", 1)[-1]
        for kind, s, _ in _run(line + decoded, _DECODED, ips):
            if s >= len(line):
                findings.append(Finding(kind, start, end, how))
    for start, end, joined in concatenations(text):
        for kind, _, _ in _run(joined, _STRONG, ips):
            findings.append(Finding(kind, start, end, "joined"))
    findings += _split(text, ips, findings)
    return _merge([_with_invisible(text, f) for f in _without_public(text, findings)], text)


def _with_invisible(text: str, finding: Finding) -> Finding:
    """The finding widened over invisible characters touching it (a BOM or zero-width space used as camouflage)."""
    start, end = finding.start, finding.end
    while start > 0 and text[start - 1] in _INVISIBLE:
        start -= 1
    while end < len(text) and text[end] in _INVISIBLE:
        end += 1
    return finding if (start, end) == (finding.start, finding.end) else replace(finding, start=start, end=end)


def _without_public(text: str, findings: list[Finding]) -> list[Finding]:
    """Generic high-entropy findings inside public material (certificates, public keys, digests) are dropped."""
    if not any(f.kind in _GENERIC for f in findings) or not any(literal in text for literal in _PUBLIC_LITERALS):
        return findings
    starts = [start for _, start, _ in _PUBLIC_FINDER.find_matches_as_indexes(text, overlapping=True)]
    public = [(m.start(), m.end()) for m in finditer_at(_PUBLIC, text, starts)]
    return [f for f in findings if f.kind not in _GENERIC or not any(s <= f.start and f.end <= e for s, e in public)]


def _paired(merged: list[Finding], finding: Finding, text: str) -> bool:
    """Two credentials joined by one ``:`` are one credential (``ACCOUNT_SID:AUTH_TOKEN``, ``user:token``)."""
    if not merged:
        return False
    last = merged[-1]
    return (
        finding.start == last.end + 1
        and text[last.end] == ":"
        and CATEGORY[last.kind] == CATEGORY[finding.kind] == "credential"
    )


def _merge(findings: list[Finding], text: str = "") -> list[Finding]:
    """One finding per overlapping group: the union span, named by the most sensitive kind in it."""
    merged: list[Finding] = []
    for finding in sorted(findings, key=lambda f: (f.start, -f.end)):
        if merged and finding.start < merged[-1].end or _paired(merged, finding, text):
            last = merged[-1]
            best = min(
                (last, finding),
                key=lambda f: (f.kind in _GENERIC, _PRIORITY[CATEGORY[f.kind]], f.kind in _WEAK, -(f.end - f.start)),
            )
            merged[-1] = Finding(best.kind, last.start, max(last.end, finding.end), best.via)
        else:
            merged.append(finding)
    return merged


def redact(text: str, findings: list[Finding]) -> str:
    """``text`` with each finding replaced by ``[REDACTED:<kind>]``; nothing outside the findings changes."""
    out, cursor = [], 0
    for finding in findings:
        out.append(text[cursor : finding.start])
        out.append(f"[REDACTED:{finding.kind}]")
        cursor = finding.end
    out.append(text[cursor:])
    return "".join(out)
