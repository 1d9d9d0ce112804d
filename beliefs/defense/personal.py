"""Personal data: contact details, national and financial identifiers, dates of birth, addresses, devices.

Checksums come from python-stdnum (Luhn, IBAN mod 97, SSN area rules, NHS, Aadhaar, SIN, CPF)
and phone numbers are checked with libphonenumber (``phonenumbers``). Layouts with no
checksum (UK National Insurance numbers, passports, dates of birth, street addresses) are
taken only in the shape their issuer documents or after the label that introduces them.
"""

from __future__ import annotations

import re

import phonenumbers
from stdnum.ca import sin
from stdnum.gb import nhs
from stdnum.in_ import aadhaar

from beliefs.defense.base import Detector, near
from beliefs.defense.validators import (
    base58check_address,
    bech32_address,
    card,
    checked,
    cpf_valid,
    iban_valid,
    ip_kind,
    us_ssn,
)

_NOT_PERSONAL = re.compile(
    r"(?i)\b(?:order|po|p\.o\.|purchase|invoice|inv|part|sku|bin|warehouse|wh|case|ticket|meeting|build|version|ref|"
    r"tracking|serial|isbn|ean|upc|gtin|epoch|timestamp|zip|id|no\.? of|room|extension|port|pid|job|run|batch|ein|tin|"
    r"tax)\b\s*(?:no\.?|num(?:ber)?|nr\.?|#|id)?\s*[:#.=\-]?\s*$"
)
_PLACEHOLDER_MAIL = re.compile(
    r"(?i)^(?:user|username|you|your[._-]?name|yourname|name|email|e-mail|someone|somebody|me|foo|test|example)@"
    r"(?:example\.(?:com|org|net)|domain\.com|yourdomain\.com|company\.com|email\.com)$"
)
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
    return not _PLACEHOLDER_MAIL.match(text[start:end])


_EMAIL_DOMAIN = re.compile(r"@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,24}\b")


def _emails(text: str):
    """Addresses found from their ``@domain.tld`` (a literal anchor), the local part read backwards."""
    for match in _EMAIL_DOMAIN.finditer(text):
        start = match.start()
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "._%+-"):
            start -= 1
        if start < match.start():
            yield start, match.end()


_PHONE_CONTEXT = re.compile(
    r"(?i)\b(?:tel|phone|call|mobile|cell|fax|ring|contact|whatsapp|sms|text me|number|"
    r"telefon|téléphone|teléfono|callback|reach)\b"
)
_PHONE_REST = r"[\d\s().\-]{5,20}\d(?:\s*(?:x|ext\.?)\s*\d{1,6})?(?![\w@/\-]|\.\d)"
_REGIONS = ("US", "GB", "DE", "FR", "ES", "NL", "IT", "AU", "IN", "CA", "JP", "BR")
_DATE_OR_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|\d{1,2}:\d{2}|^\d{3}-\d{2}-\d{4}$|^\d{2}-\d{7}$"
    r"|^\d{1,3}(?:\.\d{1,3}){3}$|^\d{3}\.\d{3}\.\d{3}-\d{2}$"
)


_EXTENSION = re.compile(r"(?i)\s*(?:x|ext\.?)\s*\d+$")
_NON_DIGITS = re.compile(r"\D")
_FORMATTING = re.compile(r"[()\s.\-]")


def _phone_check(text: str, start: int, end: int) -> bool:
    raw = text[start:end]
    number = _EXTENSION.split(raw)[0]
    digits = _NON_DIGITS.sub("", number)
    if not 7 <= len(digits) <= 15 or _DATE_OR_TIME.search(number) or near(text, start, _NOT_PERSONAL, 30):
        return False
    if number.startswith("00"):
        number = "+" + number[2:].lstrip(" -.")
    international = number.startswith("+")
    formatted = bool(_FORMATTING.search(number.strip()))
    if not international and not formatted and not near(text, start, _PHONE_CONTEXT, 40):
        return False
    if not international and (len(digits) > 11 or (len(digits) < 9 and not near(text, start, _PHONE_CONTEXT, 40))):
        return False  # national numbers have at most 11 digits; longer runs are accounts, cards or ids
    candidates = [None] if international else _REGIONS
    for region in candidates:
        try:
            parsed = phonenumbers.parse(number.replace("(0)", "") if international else number, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_possible_number(parsed):
            return True
    return False


_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|"
    r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_DATE = (
    rf"(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}[/.\-]\d{{1,2}}[/.\-]\d{{2,4}}|{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+"
    rf"\d{{4}}|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\.?,?\s+\d{{4}})"
)
_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|"
    "RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC|PR|VI|GU|AS|MP|FM|MH|PW|AA|AE|AP"
)
_UK_POSTCODE = (
    r"(?:GIR ?0AA|[A-PR-UWYZ](?:\d[A-HJKPSTUW]?|[A-HK-Y]\d[ABEHMNPRVWXY]?|\d\d|[A-HK-Y]\d\d?) ?\d[ABD-HJLNP-UW-Z]{2})"
)
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
    Detector(
        "phone_number",
        "pii",
        # ``(?<![\w+@/.#$\-])(?:\+|00)?\(?\d`` + ``_PHONE_REST``, written to take the first character before the
        # look-behind (a scan that skips to ``+``, ``(`` and digits), with the branches tried in the same order.
        re.compile(
            rf"[+(\d](?<![\w+@/.#$\-].)(?:(?<=\+)\(?\d{_PHONE_REST}|(?<=0)0\(?\d{_PHONE_REST}|(?<=\()\d{_PHONE_REST}"
            rf"|(?<=\d){_PHONE_REST})"
        ),
        check=_phone_check,
    ),
    Detector(
        "credit_card",
        "pii",
        # ``(?<![\d\-])(?:\d[ \-]?){12,18}\d(?![\d\-])`` with the first digit ahead of the look-behind (a faster scan)
        re.compile(r"\d(?<![\d\-]\d)[ \-]?(?:\d[ \-]?){11,17}\d(?![\d\-])"),
        card,
        check=lambda text, start, end: not near(text, start, _NOT_PERSONAL, 30),
        precheck=re.compile(r"\d{4}[ \-]?\d{4}[ \-]?\d{4}"),
    ),
    Detector(
        "iban",
        "pii",
        # ``\b[A-Z]{2}\d{2}…`` with the boundary tested after the first letter (a faster scan, the same matches)
        re.compile(r"[A-Z](?<!\w[A-Z])[A-Z]\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"),
        iban_valid,
        precheck=re.compile(r"[A-Z]{2}\d\d"),
    ),
    Detector(
        "us_ssn",
        "pii",
        re.compile(r"(?<![\d\-])\d{3}([- ])\d{2}\1\d{4}(?![\d\-])"),
        us_ssn,
        precheck=re.compile(r"\d[- ]\d\d[- ]\d{4}"),
        check=lambda text, start, end: not near(text, start, _NOT_PERSONAL, 30),
        windowed=True,
    ),
    Detector(
        "us_ssn",
        "pii",
        re.compile(r"(?i)\b(?:ssn|social security(?: number| no\.?)?|ss#|soc\.? sec\.?)\s*[:#=]?\s*(?P<v>\d{9})\b"),
        us_ssn,
        group="v",
        keywords=("ssn", "social", "ss#", "soc"),
        at_keywords=True,
    ),
    Detector(
        "us_itin",
        "pii",
        re.compile(r"(?<![\d\-])9\d{2}([- ])(?:5\d|6[0-5]|7\d|8[0-8]|9[0-24-9])\1\d{4}(?![\d\-])"),
        precheck=re.compile(r"\d[- ]\d\d[- ]\d{4}"),
        windowed=True,
    ),
    Detector(
        "uk_national_insurance_number",
        "pii",
        re.compile(r"\b(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"),
        precheck=re.compile(r"\d\d ?\d\d ?\d\d ?[A-D]\b"),
        windowed=True,
    ),
    Detector(
        "uk_nhs_number",
        "pii",
        re.compile(r"(?i)\bNHS\b[^\d]{0,20}(?P<v>\d{3}[ \-]?\d{3}[ \-]?\d{4})\b"),
        checked(nhs),
        group="v",
        keywords=("nhs",),
        at_keywords=True,
    ),
    Detector(
        "in_aadhaar",
        "pii",
        re.compile(r"(?<![\w\-])[2-9]\d{3}[ \-]?\d{4}[ \-]?\d{4}(?![\w\-])"),
        checked(aadhaar),
        precheck=re.compile(r"\d{4}[ \-]?\d{4}[ \-]?\d{4}"),
        windowed=True,
    ),
    Detector(
        "ca_sin",
        "pii",
        re.compile(r"(?i)\b(?:SIN|social insurance)\b[^\d]{0,20}(?P<v>\d{3}[ \-]?\d{3}[ \-]?\d{3})\b"),
        checked(sin),
        group="v",
        keywords=("sin", "social insurance"),
        at_keywords=True,
    ),
    Detector(
        "br_cpf",
        "pii",
        re.compile(r"(?<![\d.])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\d\-])"),
        cpf_valid,
        precheck=re.compile(r"\.\d{3}\.\d{3}-"),
        windowed=True,
    ),
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
    Detector(
        "date_of_birth",
        "pii",
        re.compile(
            r"(?i)(?:\bdate[ _-]?of[ _-]?birth|\bbirth[ _-]?date|\bd\.o\.b\.|\bdob\b|\bborn(?: on)?|\bbirthday(?: is)?|"
            rf"\bgeburtsdatum|\bdate de naissance|\bfecha de nacimiento)[\"']?\s*[:=]?\s*[\"']?(?P<v>{_DATE})"
        ),
        group="v",
        keywords=("birth", "dob", "d.o.b", "born", "naissance", "nacimiento", "geburt"),
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
        precheck=re.compile(rf"\b{_UK_POSTCODE}\b"),
    ),
    # A street by its shape wherever it stands: a house number, words and a street suffix ("742 Evergreen
    # Terrace"), a street word first ("55 Rue de Rivoli", "Via Roma 10"), a German street ("Hauptstraße 5"),
    # or a post-office box; then, when present, a flat, the town, and a state and ZIP or a postcode. Each
    # form is run only in the windows around its skeleton (bounded lengths throughout).
    *(
        Detector(
            "street_address", "pii", re.compile(head + _ADDRESS_TAIL), precheck=skeleton, windowed=True, keywords=words
        )
        for head, skeleton, words in (
            (
                rf"\b\d{{1,5}}[A-Za-z]?,?\s{{1,3}}(?:(?:{_BWORD}|of|des|del|du|de|la|le|da|di)\s{{1,3}}){{1,4}}?"
                rf"{_SUFFIX}(?![A-Za-z])",
                # the house number and the word after it (a digit is found faster than forty suffixes)
                re.compile(r"\d[A-Za-z]?,?\s{1,3}[A-Za-z]"),
                (),
            ),
            (
                rf"(?:\b\d{{1,5}}[A-Za-z]?,?\s{{1,3}}{_STREET_FIRST}(?:\s{{1,3}}(?:{_BWORD}|des|del|dos|das|du|de|la|le|"
                rf"da|di)(?![a-z])){{1,4}}|\b{_STREET_FIRST}(?:\s{{1,3}}(?:{_BWORD}|della|des|del|de|di)(?![a-z])){{1,3}}"
                r"\s{1,3}\d{1,4}[A-Za-z]?\b)",
                re.compile(rf"\b{_STREET_FIRST}\b"),
                (
                    "rue",
                    "via",
                    "viale",
                    "calle",
                    "chemin",
                    "avenida",
                    "rua",
                    "strada",
                    "carrer",
                    "piazza",
                    "paseo",
                    "allée",
                    "impasse",
                    "avenue",
                    "boulevard",
                ),  # fmt: skip
            ),
            (
                r"\b[A-ZÄÖÜ][a-zäöüß]{0,30}(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm)\s{1,3}\d{1,4}[a-z]?\b",
                re.compile(r"(?:straße|strasse|str\.|weg|gasse|platz|allee|ring|damm)\s{1,3}\d"),
                ("straße", "strasse", "str.", "weg", "gasse", "platz", "allee", "ring", "damm"),
            ),
            (r"\bP\.?\s?O\.?\s?Box\s{1,3}\d{1,6}\b", re.compile(r"\bBox\s{1,3}\d"), ("box",)),
        )
    ),
    Detector(
        "mac_address",
        "pii",
        re.compile(
            # colon/dash form, then Cisco dotted form; the leading ``\b`` tested after the first digit (a faster scan)
            r"[0-9A-Fa-f](?<!\w[0-9A-Fa-f])(?:[0-9A-Fa-f]([:\-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}\b"
            r"|[0-9A-Fa-f]{3}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\b)"
        ),
        validate=lambda v: len(set(re.sub(r"[:.\-]", "", v).lower())) > 1 and (not re.fullmatch(r"[\d.]+", v)),
        precheck=re.compile(r"[:\-][0-9A-Fa-f]{2}[:\-][0-9A-Fa-f]{2}|\.[0-9A-Fa-f]{4}\."),
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
        windowed=True,
    ),
    Detector(
        "ipv6_address",
        "network",
        re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){2,7}[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{1,4}){0,6}(?![\w:])"),
        lambda v: ip_kind(v) is not None,
        precheck=re.compile(r"::?[0-9A-Fa-f]{1,4}:"),
        windowed=True,
    ),
]
