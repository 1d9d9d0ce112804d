"""Other readings of a text for the injection rules: the usual ways of writing an instruction so that rules which
read it plainly miss it.

Each reading comes with a map from its characters to positions in the text it was read from, so a finding in it
points at the original span. Readings of the matchable text (lower-cased and folded, ``injection._matchable``):

- ``leetspeak``: letters written as digits or symbols inside words ("1gn0r3 4ll pr3v10u5");
- ``separated``: words joined by dots, underscores, slashes, pluses or bars ("ignore.all.previous"), outside URLs,
  addresses and paths;
- ``joined``: a word broken by hyphens, dots or asterisks put back together ("ig-nore pre-vious", "i.g.n.o.r.e");
- ``spaced``: letters set apart by single spaces, words by wider gaps ("i g n o r e   a l l");
- ``rot13`` and ``reversed``: the whole text so transformed.

Readings of the original text (``decoded``, case matters to base64): base64 and URL-encoded runs
(``normalise.decoded_runs``), runs of hex digits, of eight-bit binary groups, of ``\\u``/``\\x`` escapes, of
base32 and of Morse code that decode to readable text.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
from collections.abc import Callable, Iterator, Sequence

from ahocorasick_rs import AhoCorasick

from beliefs.defense.normalise import decoded_runs

__all__ = ["decoded", "readings"]

_LEET_FROM, _LEET_TO = "013457@$|", "oieastasl"
_LEET = str.maketrans(_LEET_FROM, _LEET_TO)
_LEET_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789@$|_")
# A letter beside a digit or symbol that stands for one: where a leetspeak word may be.
_LEET_HINT = re.compile(r"[a-z][013457@$|][a-z013457@$|]*[a-z]|[013457@$|][a-z]+[013457@$|]")
_SEPARATORS = "._/+|*~"
_SEPARATOR_RUN = re.compile(f"[{re.escape(_SEPARATORS)}]+")
_BREAKS = ".-*"  # inside a broken word
# Three or more words joined by separators and no space ("ignore.all.previous", "reveal_your_prompt"). Hyphens are
# left out: "a do-anything-now jailbreak" names a thing. Identifiers ("aws_secret_access_key") are nouns run
# together; a sentence run together has its small words, so a run counts only with one of those.
_JOINED_WORDS = re.compile(r"(?<![\w:/@.-])[a-z]+(?:[._/+|*~]+[a-z]+){2,}(?![\w@-])")
_SMALL_WORDS = frozenset(
    "a all an and any are as at be by for from i in is it me my of on or that the this to us we you your".split()
)
# A whitespace-delimited token that is a URL, an e-mail address or a path: its separators are its own.
_ADDRESS_LIKE = re.compile(r"://|^www\.|@|^[/~]|^[a-z]:\\|\.(?:com|org|net|io|py|js|md|txt|html?|json|ya?ml)$")
# A word broken inside by hyphens, dots or asterisks ("ig-nore", "i.g.n.o.r.e", "in*struc*tions").
_BROKEN_WORD = re.compile(r"(?<![\w.\-*])[a-z]+(?:[.\-*][a-z]+)+(?![\w*]|[.\-][a-z])")
# Letters set apart by single spaces, at least six of them in a run ("i g n o r e").
_SPACED = re.compile(r"(?<!\S)[a-z](?:(?: |  +)[a-z](?!\S)){5,}")
_HEX_RUN = re.compile(r"(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){12,}(?![0-9a-fA-F])")
# Eight-bit groups ("01001001 01100111 …"), escapes ("\\u0049\\u0067 …", "\\x49\\x67 …"), base32 and Morse runs.
_BINARY_RUN = re.compile(r"(?<![01])[01]{8}(?:[ ,]?[01]{8}){11,}(?![01])")
_ESCAPE_RUN = re.compile(r"(?:\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}){12,}")
_BASE32_RUN = re.compile(r"(?<![A-Za-z0-9])[A-Z2-7]{24,}={0,6}(?![A-Za-z0-9])")
_MORSE_RUN = re.compile(r"(?<![\w.-])[.-]{1,7}(?:(?: | ?/ ?)[.-]{1,7}){11,}(?![\w.-])")
_MORSE = dict(
    zip(
        ".- -... -.-. -.. . ..-. --. .... .. .--- -.- .-.. -- -. --- .--. --.- .-. ... - ..- ...- .-- -..- -.-- --.. "
        "----- .---- ..--- ...-- ....- ..... -.... --... ---.. ----. .-.-.- --..-- ..--.. -.-.-- -..-.".split(),
        "abcdefghijklmnopqrstuvwxyz0123456789.,?!/",
        strict=True,
    )
)
# Small English words under ROT13 and reversed: a text holding two of them is worth reading so transformed.
_ROT13_WORDS = frozenset(
    f" {word} " for word in "gur naq lbh lbhe bs gb vf nyy vg va guvf jvgu gung sebz abj ba ner jvyy unir".split()
)
_REVERSED_WORDS = frozenset(
    f" {word} " for word in "eht dna uoy ruoy fo ot si lla ti ni siht htiw taht morf lliw evah".split()
)
_TURNED_WORDS = AhoCorasick(sorted(_ROT13_WORDS | _REVERSED_WORDS))
# Whole-text changes for ``bytes.translate`` (a 256-byte table; ``str.translate`` reads a dict, ten times slower):
# (table, bytes deleted).
_LEET_BYTES = (bytes.maketrans(_LEET_FROM.encode(), _LEET_TO.encode()), b"")
_SEPARATORS_AS_SPACES = (bytes.maketrans(_SEPARATORS.encode(), b" " * len(_SEPARATORS)), b"")
_BREAKS_REMOVED = (None, _BREAKS.encode())
_SPACED_HINT = re.compile(r" [a-z] [a-z] ")
# Hex digits as "h", everything else as a space: a run of 24 "h" is where a hex-encoded text may be.
_HEX_SKELETON = bytes(ord("h") if chr(code) in "0123456789abcdefABCDEF" else ord(" ") for code in range(256))
_HEX_SKELETON_RUN = b"h" * 24
# The same skeleton for base32's alphabet, and the few substrings without which the other encodings cannot occur
# (a sentence in binary holds the space, 00100000): the regular expressions run only past them.
_BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_BASE32_SKELETON = bytes(ord("b") if chr(code) in _BASE32_ALPHABET else ord(" ") for code in range(256))
_BASE32_SKELETON_RUN = b"b" * 24
_READABLE = re.compile(r"[A-Za-z ,.'!?:;\-]")

Reading = tuple[str, Sequence[int]]


def readings(variant: str, needed: Callable[[str], set[str]]) -> Iterator[Reading]:
    """Each reading of ``variant`` that differs from it, with the position in ``variant`` of each character.

    A word-level reading is given only when the change is worth reading again: it produces a word the caller's
    rules need (``needed(text)``: the ones a text holds) that was not there before. That is asked first of the
    whole text changed at C speed (``bytes.translate``), so that the words themselves are looked for only then.
    ROT13 and reversed text are read only when the text holds at least two small words of English so transformed
    ("gur", "naq"; "eht", "dna")."""
    identity = range(len(variant))
    present = needed(variant)

    def worth(before: str | None, after: str) -> bool:
        return bool(needed(after) - (present if before is None else needed(before)))

    if worth(None, _translated(variant, _LEET_BYTES)) and (spans := _leet_words(variant)):
        words = [variant[start:end] for start, end in spans]
        if worth(" ".join(words), " ".join(word.translate(_LEET) for word in words)):
            pieces, last = [], 0
            for (start, end), word in zip(spans, words, strict=True):
                pieces += [variant[last:start], word.translate(_LEET)]
                last = end
            yield "".join(pieces) + variant[last:], identity
    if worth(None, _translated(variant, _SEPARATORS_AS_SPACES)):
        runs = ((m.group(0), _spaced_out(m)) for m in _JOINED_WORDS.finditer(variant))
        pairs = [(before, after) for before, after in runs if after != before]
        if pairs and worth(" ".join(before for before, _ in pairs), " ".join(after for _, after in pairs)):
            yield _JOINED_WORDS.sub(_spaced_out, variant), identity
    if worth(None, _translated(variant, _BREAKS_REMOVED)):
        joined = _removing(variant, _BROKEN_WORD, lambda word: [i for i, c in enumerate(word) if c in _BREAKS], worth)
        if joined:
            yield joined
    if _SPACED_HINT.search(variant) and (spaced := _removing(variant, _SPACED, _single_spaces, worth)):
        yield spaced
    small = set(_TURNED_WORDS.find_matches_as_strings(variant))
    if len(small & _ROT13_WORDS) >= 2:
        yield codecs.encode(variant, "rot13"), identity
    if len(small & _REVERSED_WORDS) >= 2:
        yield variant[::-1], range(len(variant) - 1, -1, -1)


def decoded(text: str, needed: Callable[[str], set[str]]) -> Iterator[Reading]:
    """Each encoded run of ``text`` decoded and lower-cased, every character mapped into the run's span; only runs
    that hold a word the caller's rules need (``needed``)."""
    runs = [(start, end, plain) for start, end, plain, _ in decoded_runs(text)]
    ascii_bytes = text.encode("ascii", "replace")
    for match in _HEX_RUN.finditer(text) if _HEX_SKELETON_RUN in ascii_bytes.translate(_HEX_SKELETON) else ():
        raw = bytes.fromhex(match.group(0))
        if raw.isascii() and _readable(plain := raw.decode()):
            runs.append((match.start(), match.end(), plain))
    runs += _other_encodings(text, ascii_bytes)
    for start, end, plain in runs:
        width, lowered = end - start, plain.lower()
        if not needed(lowered):
            continue
        yield lowered, [start + min(i * width // max(len(lowered), 1), width - 1) for i in range(len(lowered))]


def _readable(plain: str | None) -> bool:
    return bool(plain) and plain.isascii() and len(_READABLE.findall(plain)) >= 0.9 * len(plain)


def _other_encodings(text: str, ascii_bytes: bytes) -> list[tuple[int, int, str]]:
    """Binary groups, ``\\u``/``\\x`` escapes, base32 and Morse runs of ``text`` (``ascii_bytes``: its ASCII encoding,
    others replaced) that decode to readable text."""
    runs = []
    if "00100000" in text:
        for match in _BINARY_RUN.finditer(text):
            groups = re.findall(r"[01]{8}", match.group(0))
            plain = "".join(chr(int(group, 2)) for group in groups)
            if _readable(plain):
                runs.append((match.start(), match.end(), plain))
    if "\\u" in text or "\\x" in text:
        for match in _ESCAPE_RUN.finditer(text):
            plain = "".join(chr(int(code, 16)) for code in re.findall(r"\\[ux]([0-9a-fA-F]+)", match.group(0)))
            if _readable(plain):
                runs.append((match.start(), match.end(), plain))
    base32 = _BASE32_SKELETON_RUN in ascii_bytes.translate(_BASE32_SKELETON)
    for match in _BASE32_RUN.finditer(text) if base32 else ():
        run = match.group(0).rstrip("=")
        try:
            plain = base64.b32decode(run + "=" * (-len(run) % 8)).decode("ascii")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if _readable(plain):
            runs.append((match.start(), match.end(), plain))
    if text.count(" .") + text.count(" -") >= 11:
        for match in _MORSE_RUN.finditer(text):
            words = re.split(r" ?/ ?| {2,}", match.group(0))
            letters = [[_MORSE.get(code) for code in word.split()] for word in words]
            if all(all(letters_) for letters_ in letters):
                runs.append((match.start(), match.end(), " ".join("".join(word) for word in letters)))
    return runs


def _translated(text: str, change: tuple[bytes | None, bytes]) -> str:
    """``text`` with ``change`` applied to its UTF-8 bytes (the changes touch ASCII characters only, which UTF-8 keeps
    as single bytes that no other character's encoding contains)."""
    table, delete = change
    return text.encode().translate(table, delete).decode()


def _leet_words(variant: str) -> list[tuple[int, int]]:
    """Spans of the words that mix letters with digits or symbols standing for letters, found from where a letter
    and such a character meet (``_LEET_HINT``)."""
    spans = []
    for hint in _LEET_HINT.finditer(variant):
        if spans and hint.start() < spans[-1][1]:
            continue
        start, end = hint.start(), hint.end()
        while start and variant[start - 1] in _LEET_CHARS:
            start -= 1
        while end < len(variant) and variant[end] in _LEET_CHARS:
            end += 1
        spans.append((start, end))
    return spans


def _spaced_out(match: re.Match) -> str:
    token_start = match.string.rfind(" ", 0, match.start()) + 1
    token_end = match.string.find(" ", match.end())
    token = match.string[token_start : token_end if token_end >= 0 else len(match.string)]
    if _ADDRESS_LIKE.search(token.strip("()[]<>\"'.,;")):
        return match.group(0)
    if _SMALL_WORDS.isdisjoint(_SEPARATOR_RUN.split(match.group(0))):
        return match.group(0)
    return "".join(" " if char in _SEPARATORS else char for char in match.group(0))


def _single_spaces(run: str) -> list[int]:
    """The single spaces of a letter-spaced run (between letters of one word), and all but one of each wider gap."""
    drop = []
    for gap in re.finditer(r" +", run):
        drop.extend(range(gap.start(), gap.end() - (0 if gap.end() - gap.start() == 1 else 1)))
    return drop


def _removing(variant: str, pattern: re.Pattern, dropped, worth) -> Reading | None:
    """``variant`` without the characters ``dropped(match)`` names inside each match of ``pattern`` (positions in the
    match), with the map back; None when nothing is dropped or ``worth`` turns down the changed words."""
    cuts = []  # (match, the positions in it that go)
    for match in pattern.finditer(variant):
        gone = dropped(match.group(0))
        if gone:
            cuts.append((match, frozenset(gone)))
    if not cuts:
        return None
    before = " ".join(match.group(0) for match, _ in cuts)
    after = " ".join("".join(c for i, c in enumerate(match.group(0)) if i not in gone) for match, gone in cuts)
    if not worth(before, after):
        return None
    keep, last = [], 0
    for match, gone in cuts:
        keep.extend(range(last, match.start()))
        keep.extend(match.start() + i for i in range(match.end() - match.start()) if i not in gone)
        last = match.end()
    keep.extend(range(last, len(variant)))
    return "".join(variant[i] for i in keep), keep
