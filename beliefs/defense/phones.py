"""Phone numbers: digits grouped as a dialling plan writes them, checked with libphonenumber (``phonenumbers``).

A run of digits is a phone number when its layout is one people dial (spaces, brackets, dots, dashes or en dashes
between groups; an international prefix), or when a phone word stands before it; and not when its layout or what
surrounds it says it is something else: a date, a decimal, a version, a quantity, a book, a form's stand-in, an
identifier after its own label (``labels``).
"""

from __future__ import annotations

import re

import phonenumbers
from stdnum import isbn

from beliefs.defense.base import DIGIT_RUN, Detector, near
from beliefs.defense.labels import names_another_number

# Words that say a number is a phone number; a key's underscore or a "#" does not end them ("phone_number", "Ph#");
# German compounds end in "nummer" ("Handynummer", "Rufnummer").
_PHONE_CONTEXT = re.compile(
    r"(?i)(?<![^\W_])(?:tel|tél|tlf|tfno|ph|phone|call|mobile|mob|cell|cel|celular|handy|móvil|movil|fax|ring|contact|"
    r"whatsapp|sms|text me|number|telefon|telefone|telefono|telephone|téléphone|teléfono|callback|reach|número|numero"
    r"|\w*nummer)(?![^\W_])"
)
# The rest of a number after its first digit: digits in groups split by spaces, brackets, dots, dashes (an en dash
# too) or slashes ("030/901820"), and an extension.
_PHONE_REST = r"[\d\s().\-\u2013/]{5,20}\d(?:\s*(?:x|ext\.?)\s*\d{1,6})?(?![\w@/\-]|\.\d)"
_REGIONS = ("US", "GB", "DE", "FR", "ES", "NL", "IT", "AU", "IN", "CA", "JP", "BR")
# A date is three groups with one separator: "01.42.68.53.00" (five groups, a French number) is not one.
_DATE_OR_TIME = re.compile(
    r"\d{4}([-/.])\d{1,2}\1\d{1,2}(?![/.]?\d)|(?<![\d/.])\d{1,2}([/.])\d{1,2}\2\d{2,4}(?![/.]?\d)|\d{1,2}:\d{2}"
    r"|^\d{3}-\d{2}-\d{4}$|^\d{2}-\d{7}$"
    r"|^\d{1,3}(?:\.\d{1,3}){3}$|^\d{3}\.\d{3}\.\d{3}-\d{2}$"
)


_EXTENSION = re.compile(r"(?i)\s*(?:x|ext\.?)\s*\d+$")
# Layouts no dialling plan writes: one dot between two runs is a decimal ("2106.09685"), a year and a month leading
# the groups is a dated code ("2023-11-0456"), and the two below. (Four groups of one digit are a dotted path,
# "1.3.6.1.2.1.1.5.0", where a number has at most a country code, a trunk "0" and one more: "+33 (0)6 32 66 69 02".)
_NOT_A_PHONE_LAYOUT = re.compile(
    r"\d+\.\d+$|(?:19|20)\d\d([-/.])(?:0[1-9]|1[0-2])\1"
    # a year leading two more groups ("2021-345-678", "2023 1587 42"); thousands grouped by spaces ("12 345 678 901");
    # five groups or more, the last of one digit ("4 15 55 50 13 2", "41-55-50-13-2": numbers end in longer groups)
    r"|(?:19|20)\d\d([-/. ])\d+\2\d+$|\d{1,3}(?: \d{3}){3,}$|(?:\d+\D+){4,}\d$"
)
_NON_DIGITS = re.compile(r"\D")
# A unit after the digits makes them a quantity (not "%0A", a URL-encoded line break).
_UNIT_AFTER = re.compile(
    r" ?(?:(?:mm|cm|km|kg|mg|lbs?|oz|ms|ns|px|kb|mb|gb|tb|usd|eur|gbp|hz|khz|mhz|ghz|kwh|kw|mah|rpm|fps|dpi|ppm|"
    r"[kmg]?bps|ml|ft|mi|yd|sec|secs|mins?|hrs?|mph|kph|psi|kcal|db)\b|%(?![0-9A-Fa-f]{2})|°|km²|m²)",
    re.I,
)
# A number in an equation ("555 - 123 - 4567 = -4135") is an operand.
_EQUATION_AFTER = re.compile(r"\s*=")
# North American numbers in area code 555, which is assigned to no area: "(555) 123-4567" reaches no one.
_NO_AREA = re.compile(r"(?:\+?1[ .\-]?)?\(?555\)?[ .\-]?\d{3}[ .\-]?\d{4}$")
_COUNTING = re.compile(r"012345678|123456789|234567890|987654321|876543210")  # nine digits counted in a row
_FORMATTING = re.compile(r"[()\s.\-\u2013]")  # (not a slash: "415/555/0132" needs a phone word near it)
_FORMATTING_NO_DASH = re.compile(r"[()\s.\-]")


# "<noun> code 615 204 8890", "<noun> number 44 8813 7720": the digits are that noun's identifier, unless the noun is
# one a phone number goes by ("contact number", "my number", "home no."). A phone word is such a noun too.
_NAMED_BY = re.compile(
    r"(?i)(?<![^\W_])(?:([^\W\d_]+)[ \t]+)?([^\W\d_][\w\-]*)[ \t]+(?:codes?|numbers?|no\.?|nr\.?|num\.?)"
    r"[ \t]*[:#=\-]?[ \t]*$"
)
_PHONE_OWNERS = frozenset(
    "my his her their your our its the a an this that new old same other alternate alternative backup home work office "
    "direct business personal private main daytime evening primary secondary emergency landline line support service "
    "helpline hotline switchboard reception toll-free freephone dial-in voicemail pager beeper best back".split()
)
# Nouns of a person's own numbers ("Social Security number", "passport number"): the digits stay personal data, and
# in a slice of text that cut the number's own detector off they are still redacted, as a phone.
_PERSONAL_NOUNS = frozenset(
    "social security passport insurance identity identification national citizen citizenship residence resident "
    "voter pension health medicare medicaid nhs patient ssn".split()
)
# A ZIP+4 code after a US state's postal abbreviation ("Austin, TX 78701-4321"); five digits, a dash and four are
# also a Brazilian mobile ("91234-5678"), so only there.
_ZIP_PLUS_FOUR = re.compile(r"\d{5}-\d{4}$")
_STATE_BEFORE = re.compile(
    r"\b(?:A[KLRSZ]|C[AOT]|D[CE]|F[LM]|G[AU]|HI|I[ADLN]|K[SY]|LA|M[ADEINOPST]|N[CDEHJMVY]|O[HKR]|P[AR]|RI|S[CD]|T[NX]|"
    r"UT|V[AIT]|W[AIVY]),?[ \t]+$"
)
# Digits inside a code that letters began ("1Z 999 AA1 01 2345 678 4", a UPS tracking number).
_CODE_BEFORE = re.compile(r"(?:\b1Z[ \dA-Z]{0,12}|\b[A-Z]+\d+ )$")


def _phone_check(text: str, start: int, end: int) -> bool:
    raw = text[start:end]
    if _CODE_BEFORE.search(text, max(0, start - 16), start):
        return False
    number = _EXTENSION.split(raw)[0]
    digits = _NON_DIGITS.sub("", number)
    if not 7 <= len(digits) <= 15 or _DATE_OR_TIME.search(number) or names_another_number(text, start):
        return False
    if _NOT_A_PHONE_LAYOUT.match(number.strip()) or sum(len(g) == 1 for g in DIGIT_RUN.findall(number)) >= 4:
        return False
    if _UNIT_AFTER.match(text, end) or _EQUATION_AFTER.match(text, end):
        return False  # a measurement ("415 555 132 mm"), an operand
    if number.count("-") == 3 and isbn.is_valid(number):
        return False  # a book ("0-306-40615-2")
    if (named := _NAMED_BY.search(text, max(0, start - 40), start)) and _not_a_phone_owner(*named.groups()):
        return False
    if _ZIP_PLUS_FOUR.match(number.strip()) and _STATE_BEFORE.search(text, max(0, start - 6), start):
        return False
    if len(set(digits[-7:])) == 1 or _COUNTING.search(digits) or _NO_AREA.match(number.strip()):
        return False  # "(555) 555-5555", "000-000-0000", "(123) 456-7890": a form's stand-in
    if number.startswith("00"):
        number = "+" + number[2:].lstrip(" -.")
    international = number.startswith("+")
    # (one en dash between two runs and nothing else is a range: "ports 49152–65535")
    ranged = number.count("\u2013") == 1 and not _FORMATTING_NO_DASH.search(number.strip())
    formatted = bool(_FORMATTING.search(number.strip())) and not ranged
    if not international and not (formatted and "/" not in number) and not near(text, start, _PHONE_CONTEXT, 40):
        return False  # (a slash groups digits in dates, fractions and DOIs too: only beside a phone word)
    if not international and (len(digits) > 12 or (len(digits) < 9 and not near(text, start, _PHONE_CONTEXT, 40))):
        return False  # national numbers have at most 12 digits; longer runs are accounts, cards or ids
    number = number.replace("\u2013", "-")  # (libphonenumber groups by dashes, not en dashes)
    if not international and len(digits) == 12:
        # 12 national digits: a German mobile ("0151 12345678") beside a phone word, valid in its plan, not a run
        return near(text, start, _PHONE_CONTEXT, 40) and _valid_somewhere(number)
    candidates = [None] if international else _REGIONS
    for region in candidates:
        try:
            parsed = phonenumbers.parse(number.replace("(0)", "") if international else number, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_possible_number(parsed):
            return True
    return False


def _not_a_phone_owner(before: str | None, noun: str) -> bool:
    """Whether ``noun`` (after the word ``before``) names a number as something other than a phone: not a phone word,
    nor a phone word's end split off by a space ("callb ack number")."""
    owners = (noun, before + noun) if before else (noun,)
    return not any(
        word.lower() in _PHONE_OWNERS or word.lower() in _PERSONAL_NOUNS or _PHONE_CONTEXT.fullmatch(word)
        for word in owners
    )


def _valid_somewhere(number: str) -> bool:
    """A valid number (not only a possible one) in one of the regions a national number is read in."""
    for region in _REGIONS:
        try:
            if phonenumbers.is_valid_number(phonenumbers.parse(number, region)):
                return True
        except phonenumbers.NumberParseException:
            continue
    return False


PHONE = Detector(
    "phone_number",
    "pii",
    # ``(?<![\w+@/.#$\-])(?:\+|00)?\(?\d`` + ``_PHONE_REST``, written to take the first character before the
    # look-behind (a scan that skips to ``+``, ``(`` and digits), with the branches tried in the same order.
    re.compile(
        rf"[+(\d](?<![\w+@/.#$\-].)(?:(?<=\+)\(?\d{_PHONE_REST}|(?<=0)0\(?\d{_PHONE_REST}|(?<=\()\d{_PHONE_REST}"
        rf"|(?<=\d){_PHONE_REST})"
    ),
    check=_phone_check,
)
