"""Rule-based entity extraction: names, hosts, services, accounts, ids, e-mails, titles.

Runs on retained text (to link episodes to entities) and on recall queries (to find
the entities a question is about). Surface forms are normalised into a ``key`` —
lower-case, punctuation and spaces removed — so "db-01", "DB01" and "db 01" are one
entity, and the other spellings are kept as aliases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_KEY_LENGTH = 120


@dataclass(frozen=True)
class ExtractedEntity:
    key: str
    name: str
    kind: str


_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    (
        "qualified",
        re.compile(
            r"\b(?P<kind>host|service|account|customer|user|team|product|project|incident|ticket)"
            r":(?P<value>[\w.@/-]+)",
            re.I,
        ),
    ),
    ("ticket", re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d{1,7}\b")),
    ("host", re.compile(r"\b[a-zA-Z][a-zA-Z0-9]*(?:-[a-zA-Z0-9]+)*-\d{1,4}[a-z]?\b|\b[a-zA-Z]{2,}\d{1,4}\b")),
    ("service", re.compile(r"\b[a-z][a-z0-9]+(?:-[a-z0-9]+)*-(?:api|svc|service|workers?|db|cache|queue|gateway)\b")),
    ("version", re.compile(r"\b[a-z][\w-]*\s+v\d+(?:\.\d+)+\b", re.I)),
    ("signature", re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+){1,5}\b")),
    ("title", re.compile(r"[\"“](?P<value>[^\"”\n]{2,80})[\"”]")),
    ("acronym", re.compile(r"\b[A-Z]{2,8}s?\b")),
    ("name", re.compile(r"\b[A-Z][a-z'’]+(?:[ -](?:[A-Z][a-z'’]+|of|de|van|von|the))*(?:[ -][A-Z][a-z'’]+)?\b")),
]

# Capitalised words that start sentences or are too generic to be entities.
_NOT_NAMES = set(
    """a about after again all also always an and another any are as at be because been before being both but by
    can could did do does doing done during each even ever every few for from had has have having he hello her here
    hers hey hi him his how however i i'd i'll i'm i've if in into is it it's its just last let like many may me
    maybe mine more most my never next no nor not now of off oh ok okay on once one only or other our ours out over
    own please really same she should since so some still such sure than thank thanks that that's the their theirs
    them then there these they this those though through to today tomorrow too under until up us very wait was we
    well were what when where which while who whom why will with wow would yeah yes yesterday yet you your yours
    monday tuesday wednesday thursday friday saturday sunday january february march april june july august september
    october november december alert analyst incident intervention outcome customer deploy runbook support product
    meeting agent note on-call good great nice awesome cool sounds glad sorry congrats congratulations love haha lol
    absolutely definitely totally exactly amazing fantastic yep nope true wonderful beautiful""".split()
)


def entity_key(surface: str) -> str:
    """The normalised identity of a surface form."""
    return re.sub(r"[\W_]+", "", surface.lower())[:MAX_KEY_LENGTH]


def extract_entities(text: str) -> list[ExtractedEntity]:
    """Distinct entities mentioned in ``text``, in order of first mention."""
    found: dict[str, ExtractedEntity] = {}
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(s <= start < e or s < end <= e for s, e in taken):
                continue
            surface = match.groupdict().get("value") or match.group(0)
            if kind == "qualified":
                kind_found = match["kind"].lower()
                surface = match["value"]
            else:
                kind_found = kind
            surface = surface.strip(" .,'’-")
            if kind_found == "name":
                surface = _trim_generic(surface)
            if kind_found in ("name", "acronym") and (not surface or _generic(surface)):
                continue
            key = entity_key(surface)
            if len(key) < 2 or key.isdigit():
                continue
            taken.append((start, end))
            found.setdefault(key, ExtractedEntity(key=key, name=surface[:255], kind=kind_found))
    return list(found.values())


def _trim_generic(surface: str) -> str:
    """Drop generic words around a name: "Hey Caroline" -> "Caroline"."""
    words = surface.split(" ")
    while words and words[0].lower().strip("'’") in _NOT_NAMES:
        words.pop(0)
    while words and words[-1].lower().strip("'’") in _NOT_NAMES:
        words.pop()
    return " ".join(words)


def _generic(surface: str) -> bool:
    words = [w.lower() for w in re.split(r"[ -]", surface) if w]
    return all(word.strip("'’") in _NOT_NAMES for word in words)


def query_keys(text: str, max_ngram: int = 3) -> set[str]:
    """Keys a query may refer to: its extracted entities plus every 1- to 3-word span,
    so a lower-case question ("what broke on db-01") still meets stored entities."""
    keys = {entity.key for entity in extract_entities(text)}
    words = re.findall(r"[\w@.-]+", text)
    for size in range(1, max_ngram + 1):
        for index in range(len(words) - size + 1):
            span = " ".join(words[index : index + size])
            if size == 1 and span.lower() in _NOT_NAMES:
                continue
            key = entity_key(span)
            if len(key) >= 2 and not key.isdigit():
                keys.add(key)
    return keys
