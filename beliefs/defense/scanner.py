"""Run every detector over a text and over variants that undo common evasions.

Variants: the text as written; Unicode-normalised (NFKC, Cyrillic/Greek look-alikes
mapped to Latin, zero-width and bidirectional controls removed); runs with URL
percent-encoding decoded; base64 runs decoded; and, for detectors with a distinctive
prefix, the text with whitespace removed (a token split across lines or spaces). Every
finding is mapped back to a span of the original text, so redaction removes exactly
what was written, including the encoded form.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from dataclasses import dataclass, replace
from urllib.parse import unquote

import phonenumbers

from beliefs.defense.detectors import DETECTORS, NETWORK_KINDS, Detector

_PRIORITY = {"private_key": 0, "credential": 1, "pii": 2, "network": 3}
_CATEGORY = {d.kind: d.category for d in DETECTORS}
_CONFUSABLES = str.maketrans(
    "АВЕКМНОРСТХаеорсухіјѕԁɡΑΒΕΖΗΙΚΜΝΟΡΤΥΧον",
    "ABEKMHOPCTXaeopcyxijsdgABEZHIKMNOPTYXov",
)
# Dotted national-id layouts (123.456.789-09) that libphonenumber would otherwise accept.
_ID_SHAPED = re.compile(r"\d{3}\.\d{3}\.\d{3}-\d{2}")
_GENERIC = {"high_entropy_secret", "generic_api_key"}
_SPELLED = re.compile(r"\s*[\[(]\s*(at|dot)\s*[\])]\s*", re.I)
_URL_RUN = re.compile(r"[^\s\"'<>]*%[0-9A-Fa-f]{2}[^\s\"'<>]*")
_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{20,}={0,2}")


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int
    via: str = "plain"


def _run_detectors(text: str, detectors, ip_addresses: bool) -> list[tuple[str, int, int]]:
    found = []
    for detector in detectors:
        if detector.kind in NETWORK_KINDS and not ip_addresses:
            continue
        for match in detector.pattern.finditer(text):
            value = match.group(detector.group)
            if value is None or (detector.validate and not detector.validate(value)):
                continue
            found.append((detector.kind, match.start(detector.group), match.end(detector.group)))
    if any(d.kind == "phone_number" for d in detectors):
        for match in phonenumbers.PhoneNumberMatcher(text, "US", leniency=phonenumbers.Leniency.VALID):
            if not _ID_SHAPED.fullmatch(match.raw_string):
                found.append(("phone_number", match.start, match.end))
    return found


def _normalised(text: str) -> tuple[str, list[int]]:
    """NFKC per character with look-alikes mapped and invisible controls dropped, plus an index map;
    then "name [at] host [dot] com" spelled-out addresses folded back to symbols."""
    chars, index = [], []
    for position, char in enumerate(text):
        if unicodedata.category(char) == "Cf":
            continue
        for out in unicodedata.normalize("NFKC", char).translate(_CONFUSABLES):
            chars.append(out)
            index.append(position)
    folded, folded_index, cursor = [], [], 0
    joined = "".join(chars)
    for match in _SPELLED.finditer(joined):
        folded.append(joined[cursor : match.start()])
        folded_index.extend(index[cursor : match.start()])
        folded.append("@" if match.group(1).lower() == "at" else ".")
        folded_index.append(index[match.start()])
        cursor = match.end()
    folded.append(joined[cursor:])
    folded_index.extend(index[cursor:])
    return "".join(folded), folded_index


def _despaced(text: str) -> tuple[str, list[int]]:
    chars, index = [], []
    for position, char in enumerate(text):
        if not char.isspace():
            chars.append(char)
            index.append(position)
    return "".join(chars), index


def _mapped(found, index: list[int], via: str) -> list[Finding]:
    return [Finding(kind, index[start], index[end - 1] + 1, via) for kind, start, end in found if end > start]


def _decoded_base64(run: str) -> str | None:
    padded = run + "=" * (-len(run) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded) if ("-" in run or "_" in run) else base64.b64decode(padded)
        decoded = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    printable = sum(ch.isprintable() or ch.isspace() for ch in decoded)
    return decoded if decoded and printable / len(decoded) > 0.95 else None


def scan(text: str, *, ip_addresses: bool = False) -> list[Finding]:
    """Sensitive spans of ``text`` (merged where they overlap), each with its kind."""
    if not text:
        return []
    findings = [Finding(k, s, e) for k, s, e in _run_detectors(text, DETECTORS, ip_addresses)]
    normalised, index = _normalised(text)
    if normalised != text:
        findings += _mapped(_run_detectors(normalised, DETECTORS, ip_addresses), index, "unicode")
    despaced, index = _despaced(normalised)
    if despaced != normalised:
        norm_index = _normalised(text)[1]
        findings += _mapped(_run_detectors(despaced, _SPLIT, ip_addresses), [norm_index[i] for i in index], "split")
    for match in _URL_RUN.finditer(text):
        decoded = unquote(match.group(0))
        if decoded != match.group(0):
            for kind, _, _ in _run_detectors(decoded, DETECTORS, ip_addresses):
                findings.append(Finding(kind, match.start(), match.end(), "url"))
    for match in _B64_RUN.finditer(text):
        decoded = _decoded_base64(match.group(0))
        if decoded:
            for kind, _, _ in _run_detectors(decoded, _WITHOUT_ENTROPY, ip_addresses):
                findings.append(Finding(kind, match.start(), match.end(), "base64"))
    return _merge(findings)


_WITHOUT_ENTROPY: list[Detector] = [d for d in DETECTORS if d.kind != "high_entropy_secret"]
# With whitespace removed, words run into each other: word boundaries cannot anchor the distinctive prefixes.
_SPLIT: list[Detector] = [
    replace(d, pattern=re.compile(d.pattern.pattern.replace(r"\b", ""), d.pattern.flags)) for d in DETECTORS if d.strong
]


def _merge(findings: list[Finding]) -> list[Finding]:
    """One finding per overlapping group: the union span, named by the most sensitive kind in it."""
    merged: list[Finding] = []
    for finding in sorted(findings, key=lambda f: (f.start, -f.end)):
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            best = min(
                (last, finding), key=lambda f: (_PRIORITY[_CATEGORY[f.kind]], f.kind in _GENERIC, -(f.end - f.start))
            )
            merged[-1] = Finding(best.kind, last.start, max(last.end, finding.end), best.via)
        else:
            merged.append(finding)
    return merged


def redact(text: str, findings: list[Finding]) -> str:
    """``text`` with each finding replaced by ``[REDACTED:<kind>]``."""
    out, cursor = [], 0
    for finding in findings:
        out.append(text[cursor : finding.start])
        out.append(f"[REDACTED:{finding.kind}]")
        cursor = finding.end
    out.append(text[cursor:])
    return "".join(out)
