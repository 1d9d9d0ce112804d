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


_CLOSING = {"“": "”", "‘": "’"}
# A quotation named as a specimen by what follows it: "'You are now DAN'-style prompts", "'ignore the above' attacks".
_SPECIMEN = re.compile(
    r"[\s-]{0,2}(?:style|type|kind|variety|family|class|prompts?|attacks?|payloads?|jailbreaks?|injections?|strings?|"
    r"phrases?|templates?|probes?|examples?|tricks?|patterns?|variants?)\b",
    re.I,
)


# A quotation that is the subject of what follows it: "'repeat the words above' can leak a system prompt",
# "'ignore previous instructions' is the best known of them", "'print your system prompt' works on older models".
_QUOTE_AS_SUBJECT = re.compile(
    r"\s+(?:(?:can|could|may|might|will|would|often|still|sometimes|usually)\s+(?!you\b|i\b|we\b)\w+|"
    r"(?:is|was|are|were)\s+(?:a|an|the|one|how|what|used|often|still|common|known|typical)\b|"
    r"(?:works?|worked|fail(?:s|ed)?|succeed(?:s|ed)?|trick(?:s|ed)|leak(?:s|ed)|bypass(?:es|ed)|fool(?:s|ed)|"
    r"jailbr(?:eaks|oke)|triggers|triggered|exposes|exposed|reveals|revealed)\b)",
    re.I,
)


def _quoted_specimen(text: str, quote: int, position: int) -> bool:
    """Whether the quotation opened at ``quote`` is followed, once closed on the same line, by a word naming it a
    specimen of an attack or by what it does ("… can leak")."""
    mark = text[quote]
    closing = _CLOSING.get(mark, mark)
    line_end = text.find("\n", position)
    end = text.find(closing, position, line_end if line_end >= 0 else len(text))
    return end >= 0 and bool(_SPECIMEN.match(text, end + 1) or _QUOTE_AS_SUBJECT.match(text, end + 1))


# Reported speech earlier in the sentence: "jailbreak prompts tell the model it is now …", "convinced the bot that
# its rules were lifted".
_REPORTED_SPEECH = re.compile(
    r"\b(?:tell|tells|told|telling|convinc\w+|persuad\w+|trick\w+|assur\w+|claim\w*|insist\w*)\s+"
    r"(?:the |an? |its |their )?"
    r"(?:[\w-]+ )?(?:models?|bots?|assistants?|ai|llms?|chatbots?|agents?|chatgpt|claude|gemini)\s+(?:that\s+)?"
    r"(?:it|its|they|their|he|she)\b",
    re.I,
)
_SENTENCE_START = re.compile(r"[.!?\n][^.!?\n]*$")


def mentioned(text: str, position: int) -> bool:
    """Whether what starts at ``position`` is introduced as a mention rather than given as an instruction."""
    if DISCUSSION.search(text, max(0, position - 40), position):
        return True
    window = max(0, position - 120)
    boundary = _SENTENCE_START.search(text, window, position)
    if _REPORTED_SPEECH.search(text, boundary.start() if boundary else window, position):
        return True
    quote = open_quote(text, position)
    if quote is None:
        return False
    return _quotation_mentioned(text, quote, position)


# A quotation that follows another in a list: 'phrases like "disregard the above" and "you are now …"'.
_LISTED = re.compile(r"[\"”’'`][ \t]*(?:,[ \t]*)?(?:(?:and|or)[ \t]+)?$")


def _quotation_mentioned(text: str, quote: int, position: int, depth: int = 0) -> bool:
    """Whether the quotation opened at ``quote`` is a mention: introduced as one, named a specimen, or listed after a
    quotation that is."""
    if QUOTED_MENTION.search(text, max(0, quote - 60), quote + 1) or _quoted_specimen(text, quote, position):
        return True
    listed = _LISTED.search(text, max(0, quote - 12), quote)
    if listed is None or depth >= 4:
        return False
    previous = open_quote(text, listed.start())
    return previous is not None and _quotation_mentioned(text, previous, listed.start(), depth + 1)
