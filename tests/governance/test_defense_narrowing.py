"""Memory Defense runs patterns only where they can match: that must never change what they find.

Each shortcut (windows around a skeleton, keyword starts, rule start literals, the keyword plan) is
compared with a plain ``finditer`` over the whole text, on every text of both corpora and on random
text dense in the characters the skeletons are made of.
"""

import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beliefs.defense import addresses, injection, normalise, personal, scanner, validators
from beliefs.defense.detectors import DETECTORS
from beliefs.defense.narrow import finditer_at, finditer_near, occurrences, reach

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from eval_holdout import INJECTIONS, SECRETS, load  # noqa: E402

NARROWED = [d for d in DETECTORS if d.windowed or d.at_keywords]


def _texts() -> list[str]:
    texts = [s["text"] for s in load(SECRETS)] + [s["text"] for s in load(INJECTIONS)]
    for name in ("defense_corpus.json", "injection_corpus.json"):
        texts += [s["text"] for s in json.loads((ROOT / "tests" / "governance" / name).read_text())]
    # Several samples in one text, as retained episodes hold them (windows that meet and merge).
    texts += ["\n".join(texts[i : i + 7]) for i in range(0, len(texts), 7)]
    return texts


TEXTS = _texts()


def _spans(matches) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in matches]


def _same(detector, text: str) -> bool:
    keywords = scanner._Keywords(text)
    return _spans(scanner._matches(detector, text, keywords)) == _spans(detector.pattern.finditer(text))


def test_every_narrowed_detector_declares_what_the_shortcut_needs():
    assert len(NARROWED) >= 15
    for detector in NARROWED:
        if detector.windowed:
            assert reach(detector.pattern) is not None, detector.kind  # a match has a bounded length
            assert detector.precheck or detector.keywords, detector.kind
        else:
            assert detector.keywords, detector.kind


@pytest.mark.parametrize("detector", NARROWED, ids=lambda d: d.kind)
def test_narrowed_detectors_find_what_a_whole_text_scan_finds_on_both_corpora(detector):
    different = [text[:80] for text in TEXTS if not _same(detector, text)]
    assert different == []


_DENSE = st.text(alphabet="0123456789abcdefABCDEF -.:/=+_~()#@\nQ~AKIAsig=basicNHSssn", min_size=0, max_size=300)


@settings(max_examples=150, deadline=None)
@given(_DENSE)
def test_narrowed_detectors_agree_with_a_whole_text_scan_on_random_text(text):
    assert [d.kind for d in NARROWED if not _same(d, text)] == []


def test_the_keyword_plan_visits_every_detector_whose_keywords_occur_in_order():
    for text in TEXTS[::5]:
        keywords = scanner._Keywords(text)
        expected = [d for d in DETECTORS if not d.keywords or not keywords.present.isdisjoint(d.keywords)]
        assert scanner._Plan(DETECTORS).applicable(keywords.present) == expected


def test_public_material_found_from_its_literals_is_what_a_whole_text_scan_finds():
    for text in TEXTS:
        starts = [s for _, s, _ in scanner._PUBLIC_FINDER.find_matches_as_indexes(text, overlapping=True)]
        assert _spans(finditer_at(scanner._PUBLIC, text, starts)) == _spans(scanner._PUBLIC.finditer(text))


def test_injection_rules_tried_at_their_start_literals_find_what_a_whole_text_scan_finds():
    narrowed = [pattern for _, pattern in injection.RULES if injection._STARTS[pattern]]
    assert len(narrowed) >= 50
    for text in TEXTS:
        variant, _ = injection._matchable(text)
        positions = injection._start_positions(variant)
        for pattern in narrowed:
            starts = positions.get(id(pattern), [])
            assert _spans(finditer_at(pattern, variant, starts)) == _spans(pattern.finditer(variant)), pattern.pattern


def test_cased_injection_rules_tried_at_their_start_literals_find_what_a_whole_text_scan_finds():
    narrowed = [pattern for _, pattern, _ in injection._CASED if id(pattern) in injection._CASED_STARTS]
    assert narrowed  # (the placeholder URL starts with "http" or "//")
    for text in [*TEXTS, "see //x.io/a?q=[USER_EMAIL] and https://x.io/p=[DATA] //y?id={{ token }}"]:
        for pattern in narrowed:
            starts = [at for word in injection._CASED_STARTS[id(pattern)] for at in occurrences(text, word)]
            assert _spans(finditer_at(pattern, text, starts)) == _spans(pattern.finditer(text)), text[:80]


def test_directives_read_only_the_sentences_holding_a_cue_and_all_of_those():
    from beliefs.defense import directives

    for text in TEXTS[::3]:
        lower = text.lower()
        cues, actions = directives._cue_starts(lower)
        expected = [
            m.span()
            for m in directives._SENTENCE.finditer(lower)
            if any(m.start() <= p < m.end() for p in (*cues, *actions))
        ]
        assert directives._sentences_at(lower, cues, actions) == expected, text[:80]


def test_directive_patterns_tried_only_when_their_literals_occur_find_what_the_patterns_find():
    from beliefs.defense import directives
    from beliefs.defense.triggers import Gated

    gated = [value for value in vars(directives).values() if isinstance(value, Gated)]
    assert len(gated) >= 8 and all(g._finder is not None for g in gated)  # (each has literals to look for)
    found = 0
    for text in TEXTS[::2]:
        lower = text.lower()
        for start, end in directives._sentences_at(lower, *directives._cue_starts(lower)):
            for clause in (lower[s:e] for s, e in directives._clauses(lower, start, end)):
                for pattern in gated:
                    assert _spans(filter(None, [pattern.search(clause)])) == _spans(
                        filter(None, [pattern.compiled.search(clause)])
                    ), (pattern.pattern[:40], clause)
                    assert bool(pattern.match(clause)) == bool(pattern.compiled.match(clause))
                    found += pattern.compiled.search(clause) is not None
    assert found > 100  # (the clauses hold matches to compare, not only texts the patterns skip)


def test_windows_give_the_whole_text_matches_when_they_meet_at_the_edges():

    pattern = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
    text = "x 123-45-6789 123-45-67890 9123-45-6789 000-12-3456\n"
    anchors = [(m.start(), m.end()) for m in re.finditer(r"-\d\d-", text)]
    assert _spans(finditer_near(pattern, text, anchors, reach(pattern))) == _spans(pattern.finditer(text))
    assert _spans(finditer_near(pattern, text, anchors, reach(pattern))) == [(2, 13), (40, 51)]


def test_generic_candidates_inside_specific_findings_are_skipped_without_changing_any_result(monkeypatch):
    expected = {}
    run = scanner._run
    monkeypatch.setattr(scanner, "_run", lambda text, detectors, ips, covered=False: run(text, detectors, ips))
    for text in TEXTS:
        expected[text] = scanner.scan(text)
    monkeypatch.setattr(scanner, "_run", run)
    assert [text[:80] for text in TEXTS if scanner.scan(text) != expected[text]] == []


# Patterns written to start with a character class, so that a search skips to where a match can start (a look-behind
# first makes the engine try every position), against the form they were first written in. ``found``: a precheck
# only asked whether it occurs, so only that is compared.
def _pattern(kind: str, first: str) -> re.Pattern:
    """The pattern of the one detector of ``kind`` that starts with ``first``."""
    (detector,) = [d for d in DETECTORS if d.kind == kind and d.pattern.pattern.startswith(first)]
    return detector.pattern


def _precheck(kind: str) -> re.Pattern:
    (precheck,) = {d.precheck.pattern: d.precheck for d in DETECTORS if d.kind == kind and d.precheck}.values()
    return precheck


_CARD_SEPARATOR = personal._CARD_SEPARATOR
_AS_FIRST_WRITTEN = [
    (
        "phone_number",
        _pattern("phone_number", "[+("),
        r"(?<![\w+@/.#$\-])(?:\+|00)?\(?\d[\d\s().\-\u2013/]{5,20}\d(?:\s*(?:x|ext\.?)\s*\d{1,6})?(?![\w@/\-]|\.\d)",
        "spans",
    ),
    (
        "mac_address",
        _pattern("mac_address", "[0-9A-Fa-f]"),
        r"\b[0-9A-Fa-f]{2}([:\-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}\b|\b[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\b",
        "spans",
    ),
    ("crypto_wallet", _pattern("crypto_wallet", "[13]"), r"\b[13][1-9A-HJ-NP-Za-km-z]{25,34}\b", "spans"),
    (
        "card run",
        personal._CARD_RUN,
        rf"(?<![\d.,/])(?<!\d-)\d{{1,19}}(?:{_CARD_SEPARATOR}\d{{1,19}}){{0,7}}(?![\d])",
        "spans",
    ),
    ("card skeleton", personal._CARD_SKELETON, r"\d{4}[ \t\u00a0\u2009\u202f\-.\r\n]{0,3}\d{4}", "spans"),
    ("card precheck", _precheck("credit_card"), r"\d{4}", "spans"),
    ("iban precheck", _precheck("iban"), r"[A-Za-z]{2}\d\d", "found"),
    (
        "mac precheck",
        _precheck("mac_address"),
        r"[:\-][0-9A-Fa-f]{2}[:\-][0-9A-Fa-f]{2}|\.[0-9A-Fa-f]{4}\.",
        "spans",
    ),
    (
        "aadhaar",
        _pattern("in_aadhaar", "[2-9]"),
        r"(?<![\w\-])(?<!\d )[2-9]\d{3}[ \-]?\d{4}[ \-]?\d{4}(?![\w\-])(?! \d)",
        "spans",
    ),
    ("aadhaar precheck", _precheck("in_aadhaar"), r"\d{4}[ \-]?\d{4}[ \-]?\d{4}", "spans"),
    ("UK postcode", personal._UK_POSTCODE_SEARCH, rf"\b{personal._UK_POSTCODE}\b", "spans"),
    ("house number", addresses._HOUSE_NUMBER, r"(?<![\w.,/\-])\d", "spans"),
    ("street name", addresses._NAME_START, rf"(?<![\w\-]){addresses._CAPITAL}", "spans"),
]


def _agree(rewritten: re.Pattern, original: str, how: str, text: str) -> bool:
    if how == "found":
        return bool(rewritten.search(text)) == bool(re.search(original, text))
    return _spans(rewritten.finditer(text)) == _spans(re.finditer(original, text))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789abcfAFKLZGIRNBWSE+()-\u2013.,: /#@x\n\t13\u00a0", min_size=0, max_size=80))
def test_patterns_rewritten_for_speed_match_what_they_were_written_as(text):
    assert [
        name for name, rewritten, original, how in _AS_FIRST_WRITTEN if not _agree(rewritten, original, how, text)
    ] == []


def test_patterns_rewritten_for_speed_match_what_they_were_written_as_on_both_corpora():
    for name, rewritten, original, how in _AS_FIRST_WRITTEN:
        assert rewritten.pattern != original, name
        assert [t[:80] for t in TEXTS if not _agree(rewritten, original, how, t)] == [], name


_LONG_RUNS = [d for d in DETECTORS if d.min_run]


def _too_short_but_found(text: str) -> list[str]:
    """The detectors that declare a longer run of non-space characters than ``text`` has, yet match in it."""
    longest = max(map(len, text.split()), default=0)
    return [d.kind for d in _LONG_RUNS if longest < d.min_run and d.pattern.search(text)]


def test_detectors_that_need_a_long_token_match_only_in_text_that_has_one():
    assert {d.kind for d in _LONG_RUNS} >= {"high_entropy_secret", "datadog_api_key", "aws_secret_access_key"}
    texts = [
        *TEXTS,
        "k " * 40,
        "x" * 31 + " " + "y" * 32,
        "a" * 129,
        "token: " + "Ab1_" * 9,
        "ab12" * 8 + "\n" + "c3" * 20,
    ]
    assert [t[:80] for t in texts if _too_short_but_found(t)] == []
    keywords = scanner._Keywords("x" * 31 + " " + "y" * 32 + "\tz")
    assert keywords.longest_run == 32


def _skeletons_differ(text: str) -> list[str]:
    """The long-token detectors whose precheck, run only in the long stretches, finds other spans than over it all."""
    return [
        d.kind
        for d in _LONG_RUNS
        if d.precheck and scanner._Keywords(text).skeleton(d.precheck, d.min_run) != _spans(d.precheck.finditer(text))
    ]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789abcdefABCDEF+/=_- \n\t", min_size=0, max_size=120))
def test_detectors_that_need_a_long_token_match_only_in_random_text_that_has_one(text):
    assert _too_short_but_found(text) == []
    assert _skeletons_differ(text) == []


def test_long_token_prechecks_run_in_the_long_stretches_find_what_they_find_over_the_whole_text():
    assert len([d for d in _LONG_RUNS if d.precheck]) >= 4
    same_twice = "ab" * 20 + " x " + "ab" * 20  # (a long stretch repeated: each found where it stands)
    assert scanner._Keywords(same_twice).long_runs(32) == [(0, 40), (43, 83)]
    assert [t[:80] for t in [*TEXTS, same_twice] if _skeletons_differ(t)] == []


# Where folding can change what a detector sees, as it was first written: one character class.
_FOLDABLE_AS_WRITTEN = re.compile(
    "["
    + "".join(map(re.escape, sorted(normalise.TO_ASCII)))
    + r"]|(?<=[\x00-\x7f])["
    + "".join(map(re.escape, sorted(normalise.INVISIBLE)))
    + r"]+(?=[\x00-\x7f])"
)


def test_foldable_is_the_character_class_it_replaces_on_both_corpora():
    everything = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code < 0xE000)
    # (the ranges the invisible characters are written as hold exactly them)
    assert {m.group(0) for m in re.finditer(normalise._INVISIBLE_RUN.pattern[:-1], everything)} == normalise.INVISIBLE
    assert len(normalise.TO_ASCII) > 1000 and {"\u200b", "\U000e0041"} <= normalise.INVISIBLE
    for text in TEXTS:
        assert normalise.foldable(text) == bool(_FOLDABLE_AS_WRITTEN.search(text)), text[:80]
    for text in (
        "a\u200bb",
        "\u200bb",
        "a\u200b",
        "é\u200bb",
        "a\u200b\u200c\ufeffb",
        "a\u200bé\u200bb",
        "ｆ",
        "𝐀",
        "аb",
    ):
        assert normalise.foldable(text) == bool(_FOLDABLE_AS_WRITTEN.search(text)), text


_FOLDING = "ab1 .é中\u00a0\U0001f600\u200b\u200c\u200d\u2060\ufeff\U000e0041аеоｆ９𝐀"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_FOLDING, min_size=0, max_size=12))
def test_foldable_is_the_character_class_it_replaces_on_random_text(text):
    assert normalise.foldable(text) == bool(_FOLDABLE_AS_WRITTEN.search(text))


def _iban_starts_from_every_digit_pair(text: str):
    """Where IBANs were first looked for: every pair of digits, kept when two ASCII letters stand before it."""
    cursor = 0
    for pair in re.finditer(r"\d\d", text):
        start = pair.start() - 2
        if start < cursor or not text[start : start + 2].isascii() or not text[start : start + 2].isalpha():
            continue
        match = personal._IBAN_START.match(text, start)
        if match:
            cursor = match.end()
            yield match


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789DEGBdeé -\n", min_size=0, max_size=60))
def test_iban_starts_are_found_from_the_digits_after_two_letters_as_from_every_digit_pair(text):
    assert _spans(personal._iban_starts(text)) == _spans(_iban_starts_from_every_digit_pair(text))


def test_iban_starts_are_found_from_the_digits_after_two_letters_as_from_every_digit_pair_on_both_corpora():
    texts = [*TEXTS, "xDE89370400440532013000 1DE89 3704 0044 0532 0130 00 DE1234DE89370400440532013000"]
    assert [
        t[:80] for t in texts if _spans(personal._iban_starts(t)) != _spans(_iban_starts_from_every_digit_pair(t))
    ] == []


def test_passports_are_read_from_every_spelling_of_their_words():
    for text in ("PP_NO: K1234567", "ppno K1234567 visa", "Pass_Nr 12345678 Reisepass", "travel_doc X1234567"):
        detector = next(
            d for d in DETECTORS if d.kind == "passport_number" and d.keywords == personal._PASSPORT_SPELLINGS
        )
        assert _same(detector, text), text
        assert _spans(detector.pattern.finditer(text)), text


def _iban_spans_trying_every_length(text: str):
    """IBANs as first written: every prefix from 34 characters down to 15 validated."""
    for match in personal._iban_starts(text):
        run = match.group(0)
        letters = [k for k, ch in enumerate(run) if ch.isalnum()]
        compact = "".join(run[k] for k in letters).upper()
        if not (run[:2].isupper() or run[:2].islower()):
            continue
        for length in range(min(34, len(compact)), 14, -1):
            if validators.iban_valid(compact[:length]):
                last = letters[length - 1] + 1
                if last < len(run) and run[last - 1].isalnum() and run[last].isalnum():
                    break
                yield match.start(), match.start() + last
                break


def test_ibans_validated_only_at_their_countrys_length_are_those_found_trying_every_length():
    assert len(validators.IBAN_LENGTHS) >= 80 and validators.IBAN_LENGTHS["DE"] == 22
    valid = "DE89 3704 0044 0532 0130 00, GB82WEST12345698765432 and fr1420041010050500013m02606 x"
    texts = [*TEXTS, valid, valid.replace(" ", "-"), valid + "1234 5678"]
    assert [t[:80] for t in texts if list(personal._iban_spans(t)) != list(_iban_spans_trying_every_length(t))] == []
    assert len(list(personal._iban_spans(valid))) == 2  # (the German and the British one)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789DEGBFRNLXQabdeg -\n", min_size=0, max_size=60))
def test_ibans_validated_only_at_their_countrys_length_on_random_text(text):
    assert list(personal._iban_spans(text)) == list(_iban_spans_trying_every_length(text))


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        # A common word opening one branch of a group is joined to what follows the group only when the branch is
        # that word alone: "the " here is followed by more of its branch, not by " rules".
        (r"\b(?:your|the (?:previous |earlier )?(?:safety|system)) (?:rules|prompt)", "the previous safety rules"),
        (r"\b(?:your|the (?:previous |earlier )?(?:safety|system)) (?:rules|prompt)", "the system prompt"),
        (r"(?:the|a) developer mode", "a developer mode"),
        (r"\b(?:note|message) (?:to|for) (?:the |any )?(?:ai|assistant)s?\b", "message for any assistants"),
    ],
)
def test_every_match_starts_with_one_of_the_start_literals(pattern, text):
    from beliefs.defense.triggers import start_literals

    compiled = re.compile(pattern)
    assert compiled.match(text)
    assert any(text.startswith(literal) for literal in start_literals(compiled)), start_literals(compiled)
