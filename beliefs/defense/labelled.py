"""Personal numbers that only their label tells apart: a card's security code, a bank account number, a driving
licence number.

Their digits have no layout or checksum of their own (three to seventeen digits, or a licence's letters and
digits), so each is found only right after the words that name it, and a number of digits said as a length ("CVV
must be 3 digits") is not one.
"""

from __future__ import annotations

import re

from beliefs.defense.base import Detector, near

# What may stand between a label and its value: punctuation, "number"/"no."/"#", and "is"/"was".
_JOIN = r"[\s:=#\-(\[]*(?:(?:code|number|num|no\.?|nr\.?|value)(?![a-z])[\s:=#\-]*)?(?:(?:is|was)\s+)?[\"']?"
# A number followed by one of these words is a length or a count, not a value.
_NOT_A_LENGTH = r"(?!\s*(?:-\s*)?(?:digits?|characters?|chars?|numbers?|figures?|letters?)\b)"

# Words of banking near an account number: the same label in a CRM or a utility bill names a customer, not money.
_BANKING = re.compile(
    r"(?i)\b(?:bank|banking|routing|aba|rtn|ach|wire|checking|chequing|savings|direct deposit|deposit|sort code|bsb|"
    r"transit|swift|bic|iban|payee|beneficiary|payroll|credit union)\b"
)


LABELLED: list[Detector] = [
    # A card's security code (CVV, CVC): sensitive authentication data, never to be kept once a payment is authorised
    # (PCI DSS), so it is redacted wherever its label names it, with or without the card beside it.
    Detector(
        "card_security_code",
        "pii",
        re.compile(
            r"(?i)(?<![a-z0-9])(?:cvv2?|cvc2?|cvn|security code|card verification (?:value|code|number))(?![a-z0-9])"
            rf"{_JOIN}(?P<v>\d{{3,4}})(?![\d,.]?\d){_NOT_A_LENGTH}"
        ),
        group="v",
        keywords=("cvv", "cvc", "cvn", "security code", "card verification"),
        anchored=True,
    ),
    # A bank account number after its label, with a word of banking near it ("routing 011000015, acct 000123456789",
    # "sort code 12-34-56, account number 31926819").
    Detector(
        "bank_account_number",
        "pii",
        re.compile(
            r"(?i)(?<![a-z])(?:account|acct\.?|a/c)(?![a-z])"
            rf"{_JOIN}(?P<v>\d(?:[ \-]?\d){{5,16}})(?![\d\-])(?![,.]\d){_NOT_A_LENGTH}"
        ),
        group="v",
        keywords=("account", "acct", "a/c"),
        anchored=True,
        # (a word of banking in the 80 characters before the number or the 60 after it)
        check=lambda text, start, end: near(text, start, _BANKING, 80, end - start + 60),
    ),
    # A driving licence number after its name ("driver's license is D1234567", "driving licence no. MORGA753116SM9IJ").
    Detector(
        "driving_licence_number",
        "pii",
        re.compile(
            r"(?i)(?<![a-z])(?:driver'?s?|driving|drivers)[\s\-]+licen[cs]e(?![a-z])"
            rf"(?:\s+(?:for|in|from)\s+[a-z][a-z .]{{1,20}}?)?{_JOIN}"
            r"(?P<v>(?-i:[A-Z0-9][A-Z0-9\-]{3,18}[A-Z0-9]))(?![\w\-])"
        ),
        validate=lambda value: sum(ch.isdigit() for ch in value) >= 4,
        group="v",
        keywords=("licence", "license"),
        at_keywords=True,
        lead=12,  # ("driver's " and the spaces before the word)
    ),
]
