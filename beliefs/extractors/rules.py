"""Keyless fact extraction from free text: simple subject–predicate–object sentences.

Each sentence is matched against a small set of predicate phrases ("lives in", "moved
to", "works at", "prefers", "uses", "is" …). The subject must look like a name, a host
or a definite noun phrase ("the backup job"); "I" becomes the episode's subject when it
has one; other pronouns are skipped rather than guessed. Negation ("no longer", "does
not") and hedging ("probably", "I think") are kept as flags. Predicates that hold one
value at a time (where someone lives or works) are marked functional, so a later
"moved to Berlin" replaces "lives in Paris" instead of sitting beside it.
"""

from __future__ import annotations

import re

from beliefs.extractors import MAX_OBJECT_CHARS, FactDraft

# surface phrase -> (normalised predicate, functional)
_PREDICATES: dict[str, tuple[str, bool]] = {
    "lives in": ("lives in", True),
    "lives at": ("lives in", True),
    "moved to": ("lives in", True),
    "relocated to": ("lives in", True),
    "is based in": ("is based in", True),
    "works at": ("works at", True),
    "works for": ("works at", True),
    "joined": ("works at", True),
    "reports to": ("reports to", True),
    "is owned by": ("is owned by", True),
    "runs on": ("runs on", True),
    "prefers": ("prefers", False),
    "likes": ("likes", False),
    "loves": ("likes", False),
    "enjoys": ("likes", False),
    "hates": ("dislikes", False),
    "dislikes": ("dislikes", False),
    "uses": ("uses", False),
    "owns": ("owns", False),
    "manages": ("manages", False),
    "leads": ("leads", False),
    "depends on": ("depends on", False),
    "is allergic to": ("is allergic to", False),
    "is caused by": ("is caused by", False),
    "is": ("is", False),
    "are": ("is", False),
}
_NEGATIONS = r"(?:does not|doesn't|do not|don't|no longer|never|is not|isn't|are not|aren't|not)"
_VERBS = "|".join(sorted((re.escape(p) for p in _PREDICATES), key=len, reverse=True))
_SUBJECT = (
    r"(?P<subject>I|(?:[Tt]he|[Oo]ur) [a-z][\w-]*(?: [a-z][\w-]*){0,3}"
    r"|[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,3}|[a-z][a-z0-9]*-[a-z0-9-]+)"
)
_SENTENCE = re.compile(
    rf"^\s*(?:(?P<hedge1>(?i:maybe|perhaps|probably|i think|i believe))[, ]+)?{_SUBJECT}\s+"
    rf"(?P<hedge2>(?:probably|might|may|seems to|likely)\s+)?"
    rf"(?P<negation>{_NEGATIONS}\s+)?(?P<verb>{_VERBS})\s+(?P<object>[^,;:!?]+)",
)
# Inflected forms after a negation ("doesn't live in", "no longer works at").
_BASE_FORMS = {
    "live in": "lives in",
    "work at": "works at",
    "work for": "works for",
    "like": "likes",
    "use": "uses",
    "own": "owns",
    "prefer": "prefers",
    "depend on": "depends on",
}
_CLAUSE_END = re.compile(
    r"\s+(?:because|since|but|although|when|while|after|before|so|and|which|with|for|at|in|on|every|during|from)\s+",
    re.I,
)
_TRAILING_ADVERBS = re.compile(
    r"(?:\s+(?:now|today|yesterday|recently|anymore|again|too|as well|these days|nowadays"
    r"|(?:last|this|next) (?:week|month|year|weekend|summer|winter|spring|fall|autumn)|\w+ \w+ ago))+$",
    re.I,
)
_SENTENCE_SPLIT = re.compile(r"[^.!?\n]+[.!?]?")
_PRONOUNS = {"he", "she", "they", "it", "we", "you", "this", "that", "there", "here"} | {
    "what",
    "who",
    "how",
    "why",
    "where",
    "when",
    "which",
    "whose",
}
_HEDGE_WORDS = re.compile(r"\b(?:maybe|perhaps|probably|possibly|likely|i think|i believe|might|seems)\b", re.I)
_WEAK_OBJECTS = {
    "it",
    "this",
    "that",
    "there",
    "here",
    "going",
    "not",
    "a",
    "the",
    "so",
    "very",
    "really",
    "just",
    "you",
    "me",
    "him",
    "her",
    "them",
    "us",
}


def extract(content: str, *, speaker: str = "") -> list[FactDraft]:
    """Facts stated by the sentences of ``content``; ``speaker`` stands in for "I"."""
    drafts = []
    for sentence in _SENTENCE_SPLIT.finditer(content):
        draft = _sentence_fact(content, sentence.start(), sentence.group(0), speaker)
        if draft is not None:
            drafts.append(draft)
    return drafts


def _normalise_negated_verbs(text: str) -> str:
    for base, third_person in _BASE_FORMS.items():
        text = re.sub(rf"\b({_NEGATIONS}\s+){base}\b", rf"\g<1>{third_person}", text)
        text = re.sub(rf"\bI ((?:probably |might |may )?){base}\b", rf"I \g<1>{third_person}", text)
    return text


def _sentence_fact(content: str, offset: int, sentence: str, speaker: str) -> FactDraft | None:
    normalised = _normalise_negated_verbs(sentence)
    match = _SENTENCE.match(normalised)
    if match is None:
        return None
    subject = match.group("subject").strip()
    if subject == "I":
        if not speaker:
            return None
        subject = speaker
    if subject.lower() in _PRONOUNS:
        return None
    verb = match.group("verb").lower()
    predicate, functional = _PREDICATES[verb]
    obj = _CLAUSE_END.split(match.group("object"))[0].strip().rstrip(".")
    obj = _TRAILING_ADVERBS.sub("", re.sub(r"\s*[(\[].*?(?:[)\]]|$)", "", obj)).strip()
    words = obj.split()
    if not words or len(words) > 10 or obj.lower() in _WEAK_OBJECTS or len(obj) > MAX_OBJECT_CHARS:
        return None
    if predicate == "is" and words[0].lower() in {"going", "not", "so", "very", "really", "just", "still"}:
        return None
    # The quote is the sentence as written (normalising verbs never changes its length boundaries we use).
    start = offset + (len(sentence) - len(sentence.lstrip()))
    end = offset + len(sentence.rstrip())
    if end <= start:
        return None
    hedged = bool(match.group("hedge1") or match.group("hedge2") or _HEDGE_WORDS.search(sentence))
    return FactDraft(
        subject=subject,
        predicate=predicate,
        object=obj,
        quote_start=start,
        quote_end=end,
        extractor="rules",
        negated=bool(match.group("negation")),
        hedged=hedged,
        functional=functional,
    )
