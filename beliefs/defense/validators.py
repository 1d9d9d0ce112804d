"""Checks that separate a real value from its look-alikes: checksums, shapes, placeholders.

Placeholder and reference filters start from detect-secrets' heuristics (templated
``{x}``/``<x>``/``${x}``, ``$VAR``, ``********``, sequential runs) and add the shapes vendor
documentation prints instead of a value (``xxxx``, ``YOUR_TOKEN``, ``...``, ``os.environ[…]``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import math
import re
from collections import Counter

from detect_secrets.filters.heuristic import (
    is_prefixed_with_dollar_sign,
    is_sequential_string,
    is_templated_secret,
)
from stdnum import iban, luhn
from stdnum.br import cpf
from stdnum.us import ssn

_PLACEHOLDER_WORDS = (
    "your",
    "replace",
    "changeme",
    "change_me",
    "change-me",
    "placeholder",
    "redacted",
    "dummy",
    "...",
    "…",
    "{{",
    "}}",
    "%(",
)
_PLACEHOLDER_WORD = re.compile("|".join(map(re.escape, _PLACEHOLDER_WORDS)))
_ASCII_LETTER = re.compile(r"[A-Za-z]")
# Placeholder shapes at the start (``my_…``, ``%VAR%``, ``$(…)``, ``${…}``, ``$VAR``), anywhere (``<x>``), at the end.
_PLACEHOLDER_START = re.compile(r"(?i)my[-_]|%\w+%$|\$\(|\$\{|\$[A-Z_]")
_PLACEHOLDER_ANGLE = re.compile(r"(?i)<[a-z_ -]+>")
_PLACEHOLDER_END = re.compile(r"(?i)\)s$")
_NOT_A_VALUE = re.compile(
    r"(?i)^(?:none|null|nil|true|false|undefined|empty|secret|password|passwd|pass|token|key|"
    r"string|str|value|required|optional|n/?a|tbd|todo|test|testing|example|sample|default)$"
)
_REFERENCE = re.compile(
    r"(?i)^(?:os\.|process\.env|getenv|system\.getenv|settings\.|secrets?\.|vault:|keyring\.|request\.|self\.|this\.|"
    r"credentials\.|rails\.|!ref\b|!sub\b|!getatt|[a-z_]\w*+(?:\.\w++)++\s*+[(\[]|[a-z_]\w{2,}+\s*+[(\[]\s*['\"]"
    # secret-manager references and encrypted-at-rest wrappers: the value lives elsewhere
    r"|[a-z][a-z0-9+.\-]{1,20}://(?![^/\s@]*@)|arn:aws[\w-]*:|enc\[|!vault\b|@microsoft\.keyvault|projects/[^/\s]+/secrets/"
    r"|(?:vault|ssm|secretsmanager|keyvault|azkv|gcpsm|awssm|sops|env|file):)"
)


def entropy(text: str) -> float:
    length = len(text)
    return -sum(n / length * math.log2(n / length) for n in Counter(text).values())


def is_placeholder(value: str) -> bool:
    """A stand-in for a value, not a value: ``xxxx``, ``<token>``, ``${VAR}``, ``YOUR_KEY``, ``********``."""
    core = value.strip("\"'`")
    if not core:
        return True
    # detect-secrets' is_not_alphanumeric_string (no ASCII letter at all), as one compiled search.
    if is_templated_secret(core) or is_prefixed_with_dollar_sign(core) or not _ASCII_LETTER.search(core):
        return True
    low = core.lower()
    if _PLACEHOLDER_WORD.search(low):
        return True
    if (
        _PLACEHOLDER_START.match(core)
        or _PLACEHOLDER_ANGLE.search(core)
        or _PLACEHOLDER_END.search(core)
        or _NOT_A_VALUE.match(core)
        or _REFERENCE.match(core)
    ):
        return True
    if len(set(low)) <= 2 or (len(core) >= 8 and is_sequential_string(core)):
        return True
    # A value that is mostly one repeated character (``sk_live_xxxxxxxxxxxxxxxx``) is a template.
    # (a character filling 60% of the value is the middle one once its characters are sorted)
    return len(core) >= 8 and core.count(sorted(core)[len(core) // 2]) / len(core) >= 0.6


def token_body_placeholder(value: str, prefix_length: int) -> bool:
    """A provider token whose part after the prefix is a stand-in (``ghp_xxxx…``, ``AKIAXXXX…``)."""
    body = value[prefix_length:]
    return not body or is_placeholder(body)


_HEX_DIGEST = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_HEX_KEY = re.compile(r"[0-9a-fA-F]{16,}")
_IDENTIFIER = re.compile(r"[a-z]+(?:[_.-][a-z]+)*")
_CLASSES = (re.compile(r"[a-z]"), re.compile(r"[A-Z]"), re.compile(r"\d"), re.compile(r"[^A-Za-z0-9]"))
_LOWER_WORD = re.compile(r"[a-z]+")
_FILE_NAME = re.compile(r"[\w.-]+\.(?:com|org|net|io|txt|json|ya?ml|conf|ini|env|pem|key)", re.I)
# A directory ("/home/deploy/app", "~/.config/app") or the rest of a URL ("//example.com/reset"): where something is.
_PATH_OR_URL = re.compile(r"~?(?:/[\w.\-]{2,}){2,}/?|(?:[A-Za-z][\w+.\-]*:)?//[\w\-]+(?:\.[\w\-]+)+(?:[/?#]\S*)?")


def random_secret(text: str) -> bool:
    """Looks generated: long, mixed classes, high entropy, not a plain hex digest or a word run."""
    if len(text) < 24 or _HEX_DIGEST.fullmatch(text):
        return False
    classes = sum(bool(p.search(text)) for p in _CLASSES[:3])
    return classes >= 3 and entropy(text) >= 4.0 and not is_placeholder(text)


def keyed_secret(text: str) -> bool:
    """A value given to a secret-named key: long enough and not a placeholder, reference or plain word."""
    core = text.strip("\"'`")
    if len(core) < 12 or _IDENTIFIER.fullmatch(core):  # identifiers such as ``use_ssl``
        return False
    if not _HEX_KEY.fullmatch(core):
        classes = sum(bool(p.search(core)) for p in _CLASSES)
        if classes < 2 or entropy(core) < 3.0:
            return False
    return not is_placeholder(core)


_DIGITS = re.compile(r"\d{6,64}")


def is_location(value: str) -> bool:
    """A directory or the rest of a URL, which a password label can stand before ("pwd: /home/deploy/app")."""
    return _PATH_OR_URL.fullmatch(value.strip("\"'`")) is not None


def password_value(text: str) -> bool:
    """A password as people write them: not a placeholder or reference, and not a single lowercase word.
    Digits alone are one (a numeric password or PIN) unless they run in sequence or repeat."""
    core = text.strip("\"'`")
    if _DIGITS.fullmatch(core):
        return len(set(core)) >= 3 and not is_sequential_string(core)
    if len(core) < 6 or is_placeholder(core):
        return False
    if len(core) < 12 and _LOWER_WORD.fullmatch(core):
        return False
    return not _FILE_NAME.fullmatch(core) and not is_location(core)


# Issuer identification ranges of the card networks (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro).
_CARD_IIN = re.compile(
    r"4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|6(?:011|5|4[4-9]|22)|35|3(?:0[0-5]|[689])|62|5[06-9]|6"
)


_NON_DIGITS = re.compile(r"\D")


# Numbers the card networks and payment processors publish for testing (their documentation's sandbox cards): no
# account is behind them, so they are not personal data wherever they appear.
_TEST_CARDS = frozenset(
    """4242424242424242 4000056655665556 4111111111111111 4012888888881881 4222222222222 4005519200000004
    4009348888881881 4012000033330026 4012000077777777 4217651111111119 4500600000000061 4000000000000002
    4000000000009995 4000000000000069 4000000000000127 4000000000000119 4000000000003220 4000002500003155
    5555555555554444 2223003122003222 5200828282828210 5105105105105100 5431111111111111 5454545454545454
    2223000048400011 5185540810000019 378282246310005 371449635398431 378734493671000 6011111111111117
    6011000990139424 6011000000000004 6011601160116611 3056930009020004 36227206271667 38520000023237
    30569309025904 3566002020360505 3530111333300000 6200000000000005 6250941006528599""".split()
)


def card(text: str) -> bool:
    digits = _NON_DIGITS.sub("", text)
    return (
        13 <= len(digits) <= 19
        and luhn.is_valid(digits)
        and len(set(digits)) >= 2
        and bool(_CARD_IIN.match(digits))
        and digits not in _TEST_CARDS
    )


def iban_valid(text: str) -> bool:
    """The IBAN mod-97 check, the country's length and its BBAN layout (not a national check digit: an account
    written with a wrong one is still an account)."""
    try:
        iban.validate(text, check_country=False)
    except ValueError:
        return False
    return True


def _iban_lengths() -> dict[str, int]:
    """The length of every valid IBAN by country code, from python-stdnum's registry (the code, two check digits
    and a BBAN of a fixed layout such as ``8!n10!n``): ``iban_valid`` holds for no other length and no other code."""
    lengths = {}
    for code in (a + b for a in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for b in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
        layout = iban._ibandb.info(code)[0][1].get("bban")
        if layout is not None:
            parts = re.fullmatch(r"(?:\d+![nac])+", layout) and re.findall(r"(\d+)!", layout)
            if not parts:
                raise ValueError(f"IBAN layout of variable length for {code}: {layout}")
            lengths[code] = 4 + sum(map(int, parts))
    return lengths


IBAN_LENGTHS = _iban_lengths()


def us_ssn(text: str) -> bool:
    """A valid SSN (python-stdnum: area, group and serial rules, and the numbers published in advertising) that is not
    the digits one to nine in order, the stand-in documentation uses."""
    digits = _NON_DIGITS.sub("", text)
    return digits != "123456789" and ssn.is_valid(digits)


def cpf_valid(text: str) -> bool:
    return cpf.is_valid(text)


def medicare_valid(value: str) -> bool:
    """Australian Medicare card number: the ninth digit checks the first eight (weights 1, 3, 7, 9, 1, 3, 7, 9)."""
    digits = [int(c) for c in value if c.isdigit()]
    if len(digits) not in (10, 11):
        return False
    return sum(d * w for d, w in zip(digits[:8], (1, 3, 7, 9, 1, 3, 7, 9), strict=True)) % 10 == digits[8]


def checked(module):
    return lambda text: module.is_valid(_NON_DIGITS.sub("", text))


def ip_kind(text: str) -> str | None:
    """``"public"`` for a globally routable address, ``"private"`` for any other valid one, else None."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if address.version == 6 and text.count(":") < 3 and "::" not in text:
        return None
    return "public" if address.is_global else "private"


_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _bech32_polymod(values: list[int]) -> int:
    generator = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    check = 1
    for value in values:
        top = check >> 25
        check = (check & 0x1FFFFFF) << 5 ^ value
        for i in range(5):
            check ^= generator[i] if (top >> i) & 1 else 0
    return check


def bech32_address(text: str) -> bool:
    """A segwit address with a valid BIP-173 (bech32) or BIP-350 (bech32m) checksum."""
    if text.lower() != text and text.upper() != text:
        return False
    text = text.lower()
    hrp, _, data = text.rpartition("1")
    if hrp not in {"bc", "tb", "ltc"} or len(data) < 6 or any(ch not in _BECH32 for ch in data):
        return False
    values = [ord(ch) >> 5 for ch in hrp] + [0] + [ord(ch) & 31 for ch in hrp] + [_BECH32.index(ch) for ch in data]
    return _bech32_polymod(values) in (1, 0x2BC830A3)


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def base58check_address(text: str) -> bool:
    """A legacy Bitcoin address: base58 with a valid double-SHA-256 checksum."""
    number = 0
    for ch in text:
        if ch not in _B58:
            return False
        number = number * 58 + _B58.index(ch)
    raw = number.to_bytes(25, "big") if number.bit_length() <= 200 else b""
    return len(raw) == 25 and hashlib.sha256(hashlib.sha256(raw[:-4]).digest()).digest()[:4] == raw[-4:]


def basic_auth(text: str) -> bool:
    """An HTTP Basic credential: base64 of ``user:password`` with a non-empty password."""
    try:
        decoded = base64.b64decode(text + "=" * (-len(text) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    user, sep, password = decoded.partition(":")
    return bool(sep) and bool(password) and not is_placeholder(password) and decoded.isprintable()


def pem_body(text: str) -> bool:
    """A PEM block with a real body (at least 64 base64 characters), not an elided example."""
    body = re.sub(r"-----[A-Z ]+-----|\\n|\\r|[\s]|Proc-Type:.*|DEK-Info:.*", "", text)
    return len(re.findall(r"[A-Za-z0-9+/=]", body)) >= 64
