"""Personal data: contact details, national and financial identifiers, dates of birth, addresses, devices.

Checksums come from python-stdnum (Luhn, IBAN mod 97, SSN area rules, NHS, Aadhaar, SIN, CPF);
phone numbers have their own module (``phones``), as do street addresses (``addresses``). Layouts with no
checksum (UK National Insurance numbers, passports, dates of birth, street addresses) are
taken only in the shape their issuer documents or after the label that introduces them.
"""

from __future__ import annotations

import re
from datetime import date

from beliefs.defense.addresses import FORMS as ADDRESS_FORMS
from beliefs.defense.addresses import address_spans
from beliefs.defense.base import DIGIT_RUN, Detector, near
from beliefs.defense.labels import not_another_number
from beliefs.defense.national_ids import NATIONAL_IDS
from beliefs.defense.phones import PHONE
from beliefs.defense.validators import (
    IBAN_LENGTHS,
    base58check_address,
    bech32_address,
    card,
    iban_valid,
    ip_kind,
)

_HEX_LETTER = re.compile(r"[A-Fa-f]")
# Seven or more pairs of hex digits joined by colons are bytes (a certificate serial "03:a1:5f:2c:9e:7b:11:40"), not
# an IPv6 address: one written out in full does not give every group as two digits.
_BYTE_PAIRS = re.compile(r"(?:[0-9A-Fa-f]{2}:){6,}[0-9A-Fa-f]{2}")
_MAC_CONTEXT = re.compile(
    r"(?i)\b(?:mac|ether|ethernet|hwaddr|hw addr|lladdr|bssid|wi-?fi|wlan|nic|adapter|interface|device|address)\b"
)
# A dotted number after these is a version or a section, not an address ("release 1.2.3.4", "v10.0.0.1",
# "section 2.3.1.4", "§ 4.1.2.7").
_VERSION = re.compile(
    r"(?i)(?:\bv|\bver\.?|version|release|build|firmware|\bfw|driver|package|\bpkg|revision|\brev\.?|\btag|patch|hotfix|"
    r"upgrade(?:d)? to|update(?:d)? to|bump(?:ed)? to|section|\bsec\.|chapter|\bch\.|clause|paragraph|§|article|"
    r"figure|\bfig\.|table|step|item|\boid)\s*[:=]?\s*$"
)
_PLACEHOLDER_MAIL = re.compile(
    r"(?i)^(?:user|username|you|your[._-]?name|yourname|name|email|e-mail|someone|somebody|me|foo|test|example)@"
    r"(?:example\.(?:com|org|net)|domain\.com|yourdomain\.com|company\.com|email\.com)$"
)
# Addresses no person reads: automated senders and system mailboxes ("noreply@github.com", "mailer-daemon@…").
_UNATTENDED_MAIL = re.compile(r"(?i)^(?:no-?reply|do-?not-?reply|donotreply|mailer-daemon|postmaster|bounces?)[+@]")
_TLDS = (
    "com|org|net|edu|gov|mil|int|io|co|ai|dev|app|info|biz|me|us|uk|de|fr|es|it|nl|be|ch|at|se|no|dk|fi|pl|pt|ie|ca|"
    "au|nz|jp|cn|in|br|mx|ru|eu|tv|xyz|tech|online|site"
)


def _email_check(text: str, start: int, end: int) -> bool:
    before = text[max(0, start - 80) : start]
    if re.search(r"://[^\s/]*$", before) or re.search(r"(?i)\b(?:ssh|scp|sftp|rsync|mosh)\s+(?:-\S+\s+)*$", before):
        return False  # a login in a URL or a shell command, not an address
    if text[end : end + 1] == ":" and re.match(r":[\w~./-]", text[end : end + 2]):
        return False  # git@github.com:org/repo.git
    return not _PLACEHOLDER_MAIL.match(text[start:end]) and not _UNATTENDED_MAIL.match(text[start:end])


_EMAIL_DOMAIN = re.compile(r"@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,24}\b")


def _emails(text: str):
    """Addresses found from their ``@domain.tld`` (a literal anchor), the local part read backwards."""
    for match in _EMAIL_DOMAIN.finditer(text):
        start = match.start()
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "._%+-"):
            start -= 1
        if start < match.start():
            yield start, match.end()


# Card numbers: digit groups split by spaces, dashes, dots or a line break. A run of groups may hold more than the
# card (an expiry, a CVV, a phone number after it): the card is the longest stretch of whole groups laid out as
# cards are printed (13-19 digits whole, 4-4-4-4, 4-4-4-4-3, 4-4-4-1..3, 4-6-5, 4-6-4), with Luhn and an issuer range.
_CARD_SEPARATOR = r"(?:[ \t\u00a0\u2009\u202f]{1,3}|[ \t]?[\-.][ \t]?|[ \t]?\r?\n[ \t]?)"
# (the first digit comes before the look-behinds, so a search skips to digits: see ``narrow``)
_CARD_RUN = re.compile(rf"\d(?<![\d.,/]\d)(?<!\d-\d)\d{{0,18}}(?:{_CARD_SEPARATOR}\d{{1,19}}){{0,7}}(?![\d])")
_CARD_LAYOUTS = ((4, 6, 5), (4, 6, 4))


def _card_layout(sizes: list[int]) -> bool:
    if len(sizes) == 1:
        return 13 <= sizes[0] <= 19
    if tuple(sizes) in _CARD_LAYOUTS:
        return True
    # 4-4-4-4, 4-4-4-4-3 (19 digits), 4-4-4-1..3 (13-15 digits)
    return tuple(sizes) in ((4, 4, 4, 4), (4, 4, 4, 4, 3)) or (
        len(sizes) == 4 and sizes[:3] == [4, 4, 4] and sizes[3] < 4
    )


# Every card layout holds four digits, at most three separator characters and four more digits.
_CARD_SKELETON = re.compile(r"\d\d{3}[ \t\u00a0\u2009\u202f\-.\r\n]{0,3}\d{4}")
_RUN_SEPARATORS = frozenset(" \t\u00a0\u2009\u202f-.\r\n")


def _card_runs(text: str):
    """``_CARD_RUN.finditer`` run only from where a stretch of digits and separators holding a skeleton starts."""
    cursor = 0
    for skeleton in _CARD_SKELETON.finditer(text):
        if skeleton.end() <= cursor:
            continue
        start = skeleton.start()
        while (
            start > cursor
            and (text[start - 1].isdecimal() or text[start - 1] in _RUN_SEPARATORS)
            and skeleton.start() - start < 160
        ):
            start -= 1
        for run in _CARD_RUN.finditer(text, start, min(len(text), skeleton.end() + 200)):
            cursor = max(cursor, run.end())
            yield run
            if run.end() >= skeleton.end():
                break


_FILE_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{1,4}\b")
# Words that say a run of digits is a card: a card, its network, its parts (expiry, CVV) or a payment.
_CARD_CONTEXT = re.compile(
    r"(?i)card|visa|master|amex|american express|discover|diners|jcb|unionpay|maestro|\bcc\b|ccn|\bpan\b|credit|"
    r"debit|payment|\bpa(?:y|id)|charge|billing|cvv|cvc|\bexp(?:\b|\.|iry|iration|ires)|valid|kart|karte|tarjeta|carte|"
    r"cartão|cartao|carta|信用卡|卡号"
)


def _card_context(text: str, start: int, end: int) -> bool:
    return bool(_CARD_CONTEXT.search(text, max(0, start - 60), start) or _CARD_CONTEXT.search(text, end, end + 40))


def _card_spans(text: str):
    for run in _card_runs(text):
        if run.start() and (text[run.start() - 1].isalpha() or text[run.start() - 1] == "_"):
            continue  # digits glued to letters: a code or an account (``DE89 3704 …``, ``txn_4539…``), not a card
        if _FILE_EXTENSION.match(text, run.end()):
            continue  # a file's name ("4539148803436467.pdf")
        groups = [(m.start(), m.end()) for m in DIGIT_RUN.finditer(text, run.start(), run.end())]
        best = None
        for i in range(len(groups)):
            for j in range(len(groups), i, -1):
                window = groups[i:j]
                sizes = [e - s for s, e in window]
                if not 13 <= sum(sizes) <= 19 or not _card_layout(sizes):
                    continue
                separators = {text[window[k][1] : window[k + 1][0]].strip() for k in range(len(window) - 1)}
                if len(separators) > 1 or (i or j < len(groups)) and "." in separators:
                    continue  # one kind of separator throughout; dotted groups only as a whole run
                digits = "".join(text[s:e] for s, e in window)
                if len(window) == 1 and not _card_context(text, window[0][0], window[0][1]):
                    continue  # digits unbroken, with no word of payment near them: an id, a count, a sum
                if card(digits) and (best is None or sum(sizes) > best[0]):
                    best = (sum(sizes), window[0][0], window[-1][1])
        if best:
            yield best[1], best[2]


# IBANs in any case, whole or in groups split by spaces, dashes or a line break: the country code and check digits,
# then the longest stretch that passes the country's length and layout and the mod-97 check.
_IBAN_START = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:(?:[ \t\u00a0]{1,3}|[ \t]?-[ \t]?|[ \t]?\r?\n[ \t]?)?[A-Za-z0-9]){11,32}"
)


# Two digits after two ASCII letters (a search skips to digits; the letters are a look-behind).
_CHECK_DIGITS = re.compile(r"\d(?<=[A-Za-z]{2}\d)\d")


def _iban_starts(text: str):
    """``_IBAN_START`` matched where two letters stand before two digits (digits are rarer than letters)."""
    cursor = 0
    for pair in _CHECK_DIGITS.finditer(text):
        start = pair.start() - 2
        if start < cursor:
            continue
        match = _IBAN_START.match(text, start)
        if match:
            cursor = match.end()
            yield match


def _iban_spans(text: str):
    for match in _iban_starts(text):
        run = match.group(0)
        head = run[:2]
        if not (head.isupper() or head.islower()) or head.upper() not in IBAN_LENGTHS:
            continue  # (no IBAN of an unknown country is valid)
        letters = [k for k, ch in enumerate(run) if ch.isalnum()]
        compact = "".join(run[k] for k in letters).upper()
        # Of the prefixes from 34 characters down to 15, only one of the country's length can be valid.
        for length in [IBAN_LENGTHS[compact[:2]]] if 15 <= IBAN_LENGTHS[compact[:2]] <= min(34, len(compact)) else []:
            if iban_valid(compact[:length]):
                last = letters[length - 1] + 1
                if last < len(run) and run[last - 1].isalnum() and run[last].isalnum():
                    break  # the valid prefix ends inside a group: part of a longer token
                yield match.start(), match.start() + last
                break


_PASSPORT_KEYWORDS = (
    "passport",
    "passeport",
    "pasaport",
    "passaport",
    "reisepass",
    "paspoort",
    "passnummer",
    "pass-nr",
    "pass nr",
    "passnr",
    "travel doc",
    "travel_doc",
    "traveldoc",
    "pasport",
    "paszport",
    "паспорт",
    "护照",
    "護照",
    "pp#",
    "pp no",
    "pp nr",
    "旅券",
    "パスポート",
    "여권",
)
_PASSPORT_WORDS = "|".join(re.escape(k).replace("\\ ", "[ _]?") for k in _PASSPORT_KEYWORDS)
# Every spelling of the words the pattern accepts ("pp no", "pp_no", "ppno"): each match starts at one of them.
_PASSPORT_SPELLINGS = tuple(
    dict.fromkeys(spelling for k in _PASSPORT_KEYWORDS for spelling in (k, k.replace(" ", "_"), k.replace(" ", "")))
)
_IDENTITY = re.compile(
    r"(?i)passport|visa|nationality|citizenship|identity|id card|travel|issuing (?:country|state)|date of expiry|"
    r"expiry date|place of birth|border|immigration|consulate|embassy"
)
_YEARISH = re.compile(r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01])")


def _passport_value(value: str) -> bool:
    """6-9 letters and digits with at least three digits, not a date written without separators."""
    compact = value.replace(" ", "").replace("-", "")
    digits = sum(ch.isdigit() for ch in compact)
    return 6 <= len(compact) <= 10 and digits >= 3 and not _YEARISH.fullmatch(compact)


_MRZ_WEIGHTS = (7, 3, 1)


def _mrz_digit(field: str) -> int:
    total = 0
    for i, ch in enumerate(field):
        value = int(ch) if ch.isdigit() else 0 if ch == "<" else ord(ch) - 55
        total += value * _MRZ_WEIGHTS[i % 3]
    return total % 10


def _mrz_line(line: str) -> bool:
    """Line 2 of a passport's machine-readable zone: the document number, birth date and expiry check digits hold."""
    return (
        _mrz_digit(line[0:9]) == int(line[9])
        and _mrz_digit(line[13:19]) == int(line[19])
        and _mrz_digit(line[21:27]) == int(line[27])
        and line[0:9].strip("<") != ""
    )


_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|"
    r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
# A date of birth after its label, in the label's languages: the month named in English, German, French, Spanish,
# Italian, Portuguese or Dutch, numeric in any order (a run of eight digits too), or written in CJK.
_BIRTH_LABEL = (
    r"date[ _\-]?of[ _\-]?birth|dateofbirth|birth[ _\-]?date|birthdate|birth|birthday(?: is)?|d\.o\.b\.?|dob|"
    r"born(?: on)?|geburtsdatum|geboren|date de naissance|née?|fecha de nacimiento|nacid[oa]|data di nascita|"
    r"nat[oa] il|data de nascimento|nascid[oa]|geboortedatum|дата рождения|родил(?:ся|ась)|生年月日|出生日期|"
    r"födelsedatum|fødselsdato|syntymäaika|data urodzenia|urodzon[ya]"
)
_MONTH_WORD = (
    rf"(?:{_MONTH}|januar|februar|märz|maerz|mai|juni|juli|oktober|dezember|janvier|février|fevrier|mars|avril|juin|"
    r"juillet|août|aout|septembre|octobre|novembre|décembre|decembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|"
    r"septiembre|setiembre|octubre|noviembre|diciembre|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|"
    r"dicembre|janeiro|fevereiro|março|marco|maio|junho|julho|setembro|outubro|dezembro|januari|februari|maart|mei|"
    r"augustus)"
)
_BIRTH_DATE = (
    rf"(?:\d{{4}}[\-/.]\d{{1,2}}[\-/.]\d{{1,2}}|\d{{1,2}}[/.\-]\d{{1,2}}[/.\-]\d{{2,4}}|\d{{8}}(?!\d)"
    rf"|{_MONTH_WORD}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:\d{{4}}|['\u2019]\d{{2}}(?!\d))"
    rf"|\d{{1,2}}(?:st|nd|rd|th|\.|er)?(?:\s+of|\s+de)?[\s\-]+{_MONTH_WORD}\.?(?:,|\s+de)?[\s\-]+['\u2019]?\d{{2,4}}"
    r"|\d{4}年\d{1,2}月\d{1,2}日)"
)


_FOUR_DIGITS = re.compile(r"(?<!\d)\d{4}(?!\d)")


def _plausible_birth_date(value: str) -> bool:
    """A date of birth lies between 1900 and this year; eight digits are one only when they read as a date
    (YYYYMMDD, DDMMYYYY or MMDDYYYY)."""
    years = [int(y) for y in _FOUR_DIGITS.findall(value)]
    if years and not any(1900 <= year <= date.today().year for year in years):
        return False
    if not (len(value) == 8 and value.isdigit()):
        return True
    year_first = 1900 <= int(value[:4]) <= 2030 and 1 <= int(value[4:6]) <= 12 and 1 <= int(value[6:]) <= 31
    year_last = 1900 <= int(value[4:]) <= 2030 and (
        (1 <= int(value[:2]) <= 31 and 1 <= int(value[2:4]) <= 12)
        or (1 <= int(value[:2]) <= 12 and 1 <= int(value[2:4]) <= 31)
    )
    return year_first or year_last


_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|"
    "RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC|PR|VI|GU|AS|MP|FM|MH|PW|AA|AE|AP"
)
# A UK postcode after its first letter (the area's, "[A-PR-UWYZ]"), and the whole postcode.
_UK_POSTCODE_REST = r"(?:\d[A-HJKPSTUW]?|[A-HK-Y]\d[ABEHMNPRVWXY]?|\d\d|[A-HK-Y]\d\d?) ?\d[ABD-HJLNP-UW-Z]{2}"
_UK_POSTCODE = rf"(?:GIR ?0AA|[A-PR-UWYZ]{_UK_POSTCODE_REST})"
# ``\b`` + ``_UK_POSTCODE`` + ``\b`` written to start with a character class (a search skips to capitals).
_UK_POSTCODE_SEARCH = re.compile(rf"[A-PR-UWYZ](?<!\w[A-PR-UWYZ])(?:(?<=G)IR ?0AA|{_UK_POSTCODE_REST})\b")
_WORD = r"[A-Z][A-Za-z'.\-]*"
_SUFFIX = (
    r"(?:Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Boulevard|Blvd\.?|Lane|Ln\.?|Drive|Dr\.?|Terrace|Way|Court|Ct\.?|"
    r"Place|Pl\.?|Parkway|Pkwy\.?|Highway|Hwy\.?|Close|Crescent|Square|Sq\.?|Loop|Circle|Row|Walk|Gardens|Grove|"
    r"Mews|Trail|Plaza|Alley|Quay|Wharf|Rise)"
)
_STREET_FIRST = r"(?:Rue|Via|Viale|Calle|Chemin|Avenida|Rua|Strada|Carrer|Piazza|Paseo|Allée|Impasse|Avenue|Boulevard)"
_BWORD = r"[A-Z][A-Za-z'.\-]{0,30}"
_BTOWN = rf"(?!(?:{_STATES})\b)[A-ZÀ-Ý][A-Za-zÀ-ÿ'\-]{{0,30}}"  # a town's words, never a state code
_ADDRESS_TAIL = (
    r"(?:,?\s{1,3}(?:Apt\.?|Apartment|Flat|Suite|Ste\.?|Unit|Fl\.?|Floor|#)\s{0,2}[\w\-]{1,10})?"
    rf"(?:,\s{{0,3}}(?:\d{{4,5}}\s{{1,3}})?{_BTOWN}(?:\s{{1,3}}{_BTOWN}){{0,2}}(?=[\s,.;)]|$))?"
    rf"(?:,?\s{{1,3}}(?:{_STATES}|[A-Z][a-z]{{2,20}})\s{{1,3}}\d{{5}}(?:-\d{{4}})?\b|,?\s{{1,3}}{_UK_POSTCODE}\b)?"
)

PERSONAL: list[Detector] = [
    Detector(
        "email",
        "pii",
        re.compile(r"(?<![\w.%+\-])[\w.%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,24}\b"),
        keywords=("@",),
        check=_email_check,
        finder=_emails,
    ),
    Detector(
        "email",
        "pii",
        re.compile(
            r"(?i)\b[\w+\-]{2,64}(?:\s*(?:\(dot\)|\[dot\]|\{dot\}|\s+dot\s+|\.)\s*[\w+\-]{1,64})*"
            r"\s*(?:\(at\)|\[at\]|\{at\}|<at>|\s+at\s+)\s*[\w\-]{2,63}"
            rf"(?:\s*(?:\(dot\)|\[dot\]|\{{dot\}}|<dot>|\s+dot\s+)\s*[\w\-]{{2,63}})*\s*(?:\(dot\)|\[dot\]|\{{dot\}}|<dot>|\s+dot\s+|\.)\s*(?:{_TLDS})\b"
        ),
        validate=lambda v: bool(re.search(r"(?i)\(at\)|\[at\]|\{at\}|<at>|\bdot\b", v)),
        keywords=("dot", "(at)", "[at]", "{at}", "<at>"),
    ),
    PHONE,
    Detector(
        "credit_card",
        "pii",
        # (the finder reads digit groups; this pattern is what it starts from)
        _CARD_RUN,
        card,
        check=not_another_number,
        precheck=re.compile(r"\d\d{3}"),
        finder=lambda text: _card_spans(text),
    ),
    Detector(
        "iban",
        "pii",
        _IBAN_START,
        precheck=re.compile(r"\d(?<=[A-Za-z]{2}\d)\d"),
        finder=lambda text: _iban_spans(text),
    ),
    *NATIONAL_IDS,
    Detector(
        "passport_number",
        "pii",
        # A label in prose or a key ("passport no. 925…", "UK passport (number 925…)", ``"passport_no": "A12…"``).
        re.compile(
            r"(?i)\bpassport(?:[\s_\-]*(?:no\.?|number|num|nr\.?|id|#)|[^\n\d.;]{0,20}?\b(?:no\.|number|num|nr\.?)"
            r"|[^\n\d.;]{0,20}?#)?[\"'\s:=#.(]*(?P<v>[A-Z0-9]{6,9})\b"
        ),
        validate=lambda v: len(re.findall(r"\d", v)) >= 5,
        group="v",
        keywords=("passport",),
        at_keywords=True,
    ),
    # The document's word in several languages, then within a few words a number of 6-9 letters and digits
    # ("passport number for the visa form is K4821937", "numéro de passeport : 18AV46721", "Reisepass-Nr. C01X00T47").
    Detector(
        "passport_number",
        "pii",
        re.compile(
            rf"(?i)(?:{_PASSPORT_WORDS})(?:[^\n\d.;!?]|\.(?=\s?[\w\"':])){{0,48}}?(?<![\w\-])"
            r"(?P<v>(?-i:[A-Z0-9]{6,9}|[A-Z]{1,2}[ \-]?\d{6,8}))(?![\w\-])"
        ),
        validate=_passport_value,
        group="v",
        keywords=_PASSPORT_SPELLINGS,
        at_keywords=True,
    ),
    # "document number" names a passport only beside words of identity or travel ("visa", "nationality").
    Detector(
        "passport_number",
        "pii",
        re.compile(
            r"(?i)\bdoc(?:ument)?[\s_\-]?(?:number|no\.?|nr\.?|num|#)[\"'\s:=#(]{0,6}"
            r"(?P<v>(?-i:[A-Z0-9]{6,9}|[A-Z]{1,2}[ \-]?\d{6,8}))(?![\w\-])"
        ),
        validate=_passport_value,
        group="v",
        keywords=("document", "doc"),
        check=lambda text, start, end: near(text, start, _IDENTITY, 120, 80),
    ),
    # The machine-readable zone of a passport (ICAO 9303 TD3 line 2), checked by its check digits.
    Detector(
        "passport_number",
        "pii",
        re.compile(r"(?<![A-Z0-9<])(?P<v>[A-Z0-9<]{9})\d[A-Z<]{3}\d{6}\d[MFX<]\d{6}\d"),
        validate=None,
        group=0,
        keywords=("<",),
        check=lambda text, start, end: _mrz_line(text[start:end]),
    ),
    Detector(
        "date_of_birth",
        "pii",
        re.compile(
            rf"(?i)(?<![^\W_])(?:{_BIRTH_LABEL})(?![^\W_])[\"']?[ \t]*(?:\([^()\n]{{1,20}}\)[ \t]*)?"
            r"(?:(?:[:=|\-\u2013\u2014]|on|am|le|el|il|em|op|is|was)[ \t]*)?(?:the[ \t]+)?[\"']?"
            rf"(?P<v>{_BIRTH_DATE})"
        ),
        validate=_plausible_birth_date,
        group="v",
        keywords=(
            "birth",
            "dob",
            "d.o.b",
            "born",
            "naissance",
            "né",
            "nacimiento",
            "nacid",
            "geburt",
            "geboren",
            "geboorte",
            "nascita",
            "nato",
            "nata",
            "nascimento",
            "nascid",
            "рожд",
            "生年月日",
            "出生",
            "födelse",
            "fødsel",
            "syntymä",
            "urodzenia",
            "urodzon",
        ),  # fmt: skip
    ),
    Detector(
        "street_address",
        "pii",
        re.compile(
            rf"\b\d{{1,6}}(?:\s+{_WORD}){{1,5}}(?:,?\s+(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Fl\.?|Floor|#)\s*[\w\-]+)?,?"
            rf"\s+{_WORD}(?:\s+{_WORD}){{0,3}},\s+(?:{_STATES})\s+\d{{5}}(?:-\d{{4}})?\b"
        ),
        precheck=re.compile(r", [A-Z]{2} \d{5}\b"),
    ),
    Detector(
        "street_address",
        "pii",
        re.compile(
            rf"\b(?:(?:Flat|Studio|Apartment|Unit)\s+\d+[A-Za-z]?,?\s+(?:\d{{1,5}}[A-Za-z]?\s+)?|\d{{1,5}}[A-Za-z]?\s+)"
            rf"{_WORD}(?:\s+{_WORD}){{0,4}},"
            rf"(?:\s+{_WORD}){{1,4}},?\s+{_UK_POSTCODE}\b"
        ),
        precheck=_UK_POSTCODE_SEARCH,
    ),
    # A street by its shape wherever it stands, in several countries' layouts (``addresses``): found from the
    # street words in one pass, each form matched only where its word is.
    Detector(
        "street_address",
        "pii",
        ADDRESS_FORMS[0],
        finder=address_spans,
    ),
    # Japanese, Chinese and Korean addresses: prefecture or province, city or ward, then block numbers.
    Detector(
        "street_address",
        "pii",
        re.compile(
            r"(?:〒\s?\d{3}-\d{4}\s*)?[\u3400-\u9fff\u3040-\u30ff]{1,12}?(?:都|道|府|県|省|市)"
            r"[\u3400-\u9fff\u3040-\u30ff]{0,12}?(?:市|区|県|町|村|郡|县)[\u3400-\u9fff\u3040-\u30ff]{0,20}?"
            r"[0-9０-９]{1,4}(?:号|番地?|丁目)?(?:[\-－‐−][0-9０-９]{1,4}(?:号|番地?)?){0,3}"
            r"|[가-힣]{1,10}(?:시|도)\s?[가-힣]{1,10}(?:구|군)\s?[가-힣0-9]{1,15}(?:로|길)\s?\d{1,4}(?:-\d{1,4})?"
        ),
        keywords=("都", "道", "府", "県", "省", "市", "시", "도"),
    ),
    # Russian and other Cyrillic addresses: a street word, its name, the house ("ул. Тверская, д. 7, кв. 12").
    Detector(
        "street_address",
        "pii",
        re.compile(
            r"(?i)(?<![\w])(?:ул\.|улица|пр\.|просп\.|проспект|пер\.|переулок|ш\.|шоссе|наб\.|набережная|бул\.|бульвар|"
            r"пл\.|площадь|вул\.|вулиця)\s?[А-ЯЁЇІЄа-яёїіє][А-ЯЁЇІЄа-яёїіє\-]{1,30}(?:\s[А-ЯЁЇІЄа-яёїіє\-]{2,30}){0,2},?\s?"
            r"(?:д\.|дом|буд\.)?\s?\d{1,4}[а-я]?(?:/\d{1,4})?(?:,?\s?(?:корп\.|к\.|стр\.|кв\.|оф\.)\s?\d{1,4}){0,3}"
            r"(?:,\s?(?:г\.\s?)?[А-ЯЁ][а-яё\-]{2,30})?(?:,?\s?\d{6})?"
        ),
        keywords=("ул", "пр", "пер", "ш.", "наб", "бул", "пл.", "вул", "улица", "шоссе"),
    ),
    Detector(
        "mac_address",
        "pii",
        re.compile(
            # colon/dash form, then Cisco dotted form; the leading ``\b`` tested after the first digit (a faster scan)
            # (not inside a longer run of groups: "5E:FF:56:A2:AF:15:88:25:…" is a certificate fingerprint)
            r"[0-9A-Fa-f](?<!\w[0-9A-Fa-f])(?<![:\-][0-9A-Fa-f])"
            r"(?:[0-9A-Fa-f]([:\-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}\b(?!\1[0-9A-Fa-f])"
            r"|[0-9A-Fa-f]{3}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\b)"
        ),
        validate=lambda v: len(set(re.sub(r"[:.\-]", "", v).lower())) > 1 and (not re.fullmatch(r"[\d.]+", v)),
        # six decimal pairs are lap times or ratios ("10:20:30:40:50:60") unless a word says the device's address
        check=lambda text, start, end: (
            _HEX_LETTER.search(text, start, end) is not None or near(text, start, _MAC_CONTEXT, 40)
        ),
        # ("[:\-][0-9A-Fa-f]{2}[:\-][0-9A-Fa-f]{2}|\.[0-9A-Fa-f]{4}\.", its separator first so a search skips to one)
        precheck=re.compile(r"[:\-.](?:(?<=[:\-])[0-9A-Fa-f]{2}[:\-][0-9A-Fa-f]{2}|(?<=\.)[0-9A-Fa-f]{4}\.)"),
        windowed=True,
    ),
    Detector(
        "crypto_wallet",
        "pii",
        re.compile(r"\b(?:bc|tb|BC|TB)1[02-9ac-hj-np-zAC-HJ-NP-Z]{11,71}\b"),
        bech32_address,
        keywords=("bc1", "tb1"),
    ),
    # ``\b[13]…`` with the boundary tested after the first character (a faster scan, the same matches)
    Detector("crypto_wallet", "pii", re.compile(r"[13](?<!\w[13])[1-9A-HJ-NP-Za-km-z]{25,34}\b"), base58check_address),
    Detector("crypto_wallet", "pii", re.compile(r"\b0x[0-9a-fA-F]{40}(?![0-9a-fA-F])"), keywords=("0x",)),
    Detector(
        "ipv4_address",
        "network",
        re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])"),
        lambda v: ip_kind(v) is not None,
        precheck=re.compile(r"\.\d{1,3}\.\d{1,3}\.\d"),
        check=lambda text, start, end: not near(text, start, _VERSION, 24),
        windowed=True,
    ),
    Detector(
        "ipv6_address",
        "network",
        re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){2,7}[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{1,4}){0,6}(?![\w:])"),
        lambda v: ip_kind(v) is not None and not _BYTE_PAIRS.fullmatch(v),
        precheck=re.compile(r"::?[0-9A-Fa-f]{1,4}:"),
        windowed=True,
    ),
]
