"""Variants of a text that undo evasions, each with a map from its characters back to the original.

- ``folded``: Unicode NFKC (full-width forms), Cyrillic/Greek look-alikes mapped to Latin, and
  invisible format characters (zero-width, BOM, bidirectional controls, tags) removed;
- ``despaced``: whitespace removed (a token split across lines or by spaces);
- ``joined``: the pieces of a string concatenation (``"ghp_ab" + "cd…"``) run together;
- URL percent-encoding and base64 runs are decoded where they occur (``decoded_runs``).

A finding in a variant is reported on the original span: ``index[i]`` is the position in the
original text of the variant's character ``i``.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from functools import lru_cache
from urllib.parse import unquote

_CONFUSABLES = str.maketrans(
    "АВЕКМНОРСТХаеорсухіјѕԁɡΑΒΕΖΗΙΚΜΝΟΡΤΥΧονıⅰİ",
    "ABEKMHOPCTXaeopcyxijsdgABEZHIKMNOPTYXoviiI",
)
# From the start of a run only (a match starting inside a run would be rescanned from each of its characters).
LOOKALIKES = frozenset(chr(code) for code in _CONFUSABLES)
_URL_RUN = re.compile(r"(?<![^\s\"'<>])[^\s\"'<>]*%[0-9A-Fa-f]{2}[^\s\"'<>]*")
_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{20,}={0,2}")
_LITERAL = r"(?:\"[^\"\n]{1,200}\"|'[^'\n]{1,200}')"
_CONCATENATION = re.compile(rf"{_LITERAL}(?:\s*(?:\+|\.|\|\||&)\s*{_LITERAL})+")


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_DIGEST_OR_WORD = re.compile(r"[0-9a-fA-F]+|[A-Za-z]+")


# ASCII a folded character must become to complete a value (not a space or a full stop: "…" or a no-break space
# folding to "..." or " " changes nothing a detector needs, and card and IBAN separators already include them).
VALUE_ASCII = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_:/@+=~#$%&*!?")


def _foldable() -> tuple[frozenset[str], frozenset[str]]:
    """The characters that fold to ASCII a value is made of (a full-width letter, a Cyrillic look-alike, a
    ligature), and the invisible format characters."""
    to_ascii, invisible = [], []
    for code in [*range(0x80, 0x10000), *range(0x1D400, 0x1D800), *range(0xE0000, 0xE0080)]:
        char = chr(code)
        if unicodedata.category(char) == "Cf":
            invisible.append(char)
        elif any(ch in VALUE_ASCII for ch in unicodedata.normalize("NFKC", char).translate(_CONFUSABLES)):
            to_ascii.append(char)
    return frozenset(to_ascii), frozenset(invisible)


def _char_class(chars) -> str:
    """``[…]`` of ``chars`` as ranges of consecutive code points (``re`` tests members outside the Basic
    Multilingual Plane one by one: as few of them as possible)."""
    codes, parts = sorted(map(ord, chars)), []
    first = 0
    for i, code in enumerate(codes):
        if i + 1 == len(codes) or codes[i + 1] != code + 1:
            low, high = re.escape(chr(codes[first])), re.escape(chr(code))
            parts.append(low if first == i else f"{low}-{high}")
            first = i + 1
    return "[" + "".join(parts) + "]"


TO_ASCII, INVISIBLE = _foldable()
_INVISIBLE_RUN = re.compile(_char_class(INVISIBLE) + "+")


def foldable(text: str) -> bool:
    """Whether folding can change what a detector sees: a character of ``TO_ASCII``, or a run of invisible format
    characters between two ASCII ones.

    (Set tests over the text: a character class of some 1,600 members, a few hundred of them outside the Basic
    Multilingual Plane, is tested member by member for every character by ``re``, some 2 ms per 1 KB.)"""
    if not TO_ASCII.isdisjoint(text):
        return True
    if INVISIBLE.isdisjoint(text):
        return False
    for run in _INVISIBLE_RUN.finditer(text):
        # (no ASCII character is invisible, so a run with ASCII on both sides is a whole run)
        if run.start() and text[run.start() - 1].isascii() and run.end() < len(text) and text[run.end()].isascii():
            return True
    return False


@lru_cache(maxsize=65536)
def _folded_char(char: str) -> str:
    """One character as folding writes it: "" for an invisible format character, else NFKC with look-alikes mapped."""
    if unicodedata.category(char) == "Cf":
        return ""
    return unicodedata.normalize("NFKC", char).translate(_CONFUSABLES)


def folded(text: str) -> tuple[str, list[int]]:
    """The text with each non-ASCII character folded (``_folded_char``), and for each character of the result the
    position in ``text`` it came from."""
    chars: list[str] = []
    index: list[int] = []
    cursor = 0
    for run in _NON_ASCII.finditer(text):
        chars.append(text[cursor : run.start()])
        index.extend(range(cursor, run.start()))
        for position in range(run.start(), run.end()):
            out = _folded_char(text[position])
            chars.append(out)
            if len(out) == 1:
                index.append(position)
            elif out:
                index.extend([position] * len(out))
        cursor = run.end()
    chars.append(text[cursor:])
    index.extend(range(cursor, len(text)))
    return "".join(chars), index


def despaced(text: str, start: int, end: int) -> tuple[str, list[int]]:
    chars, index = [], []
    for position in range(start, min(end, len(text))):
        if not text[position].isspace():
            chars.append(text[position])
            index.append(position)
    return "".join(chars), index


def concatenations(text: str):
    """``(start, end, joined)`` for each run of quoted literals joined by ``+``, ``.``, ``||`` or ``&``."""
    if "+" not in text and "||" not in text and "." not in text:
        return
    for match in _CONCATENATION.finditer(text):
        pieces = re.findall(r"\"([^\"\n]*)\"|'([^'\n]*)'", match.group(0))
        yield match.start(), match.end(), "".join(a or b for a, b in pieces)


def decoded_base64(run: str) -> str | None:
    padded = run + "=" * (-len(run) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded) if ("-" in run or "_" in run) else base64.b64decode(padded)
        decoded = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if len(decoded) >= 8 and decoded.isprintable():
        return decoded
    printable = sum(ch.isprintable() or ch.isspace() for ch in decoded)
    return decoded if len(decoded) >= 8 and printable / len(decoded) > 0.95 else None


@lru_cache(maxsize=4)
def decoded_runs(text: str) -> tuple[tuple[int, int, str, str], ...]:
    """``(start, end, decoded, how)`` for each URL-encoded or base64 run that decodes to readable text. Kept for the
    last few texts: the secrets scan and the injection markers read the same text one after the other."""
    return tuple(_decoded_runs(text))


def _decoded_runs(text: str):
    if "%" in text:
        for match in _URL_RUN.finditer(text):
            try:
                decoded = unquote(match.group(0), errors="strict")
            except UnicodeDecodeError:
                continue
            if decoded != match.group(0):
                yield match.start(), match.end(), decoded, "url"
    for match in _B64_RUN.finditer(text):
        run = match.group(0)
        if _DIGEST_OR_WORD.fullmatch(run):
            continue  # a digest or a word, not an encoding
        decoded = decoded_base64(run)
        if decoded:
            yield match.start(), match.end(), decoded, "base64"
