"""Every kind Memory Defense recognises: a pattern and, where the format has one, a validator.

Token formats are the public, documented prefixes and lengths of each provider's
credentials. Checksums are validated with python-stdnum (IBAN, Luhn, national ids);
phone numbers are found with libphonenumber. A ``strong`` detector has a distinctive
fixed prefix, so it is also run over text with whitespace removed (split secrets).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from stdnum import iban, luhn
from stdnum.br import cpf
from stdnum.ca import sin
from stdnum.gb import nhs
from stdnum.in_ import aadhaar
from stdnum.us import ssn


@dataclass(frozen=True)
class Detector:
    kind: str
    category: str  # "credential", "private_key", "pii", "network"
    pattern: re.Pattern
    validate: Callable[[str], bool] | None = None
    strong: bool = False
    group: str | int = 0  # the part of the match that is the sensitive value


def entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _card(text: str) -> bool:
    digits = _digits(text)
    return 13 <= len(digits) <= 19 and luhn.is_valid(digits) and len(set(digits)) >= 2


def _iban(text: str) -> bool:
    return iban.is_valid(text)


def _ssn(text: str) -> bool:
    return ssn.is_valid(text)


def _random_secret(text: str) -> bool:
    """Looks generated: long, mixed classes, high entropy, not a plain hex digest or a word run."""
    if len(text) < 24 or re.fullmatch(r"[0-9a-f]+|[0-9A-F]+", text):
        return False
    classes = sum(bool(re.search(p, text)) for p in (r"[a-z]", r"[A-Z]", r"\d"))
    return classes >= 3 and entropy(text) >= 4.0


def _assigned_secret(text: str) -> bool:
    return len(text) >= 8 and not re.fullmatch(r"[a-z]+|\*+|x+|<[^>]*>|\$\{?\w+\}?|null|none|true|false", text, re.I)


def _ipv4(text: str) -> bool:
    parts = text.split(".")
    return all(p.isdigit() and int(p) <= 255 and (p == "0" or not p.startswith("0")) for p in parts) and not (
        text.startswith("0.")
    )


def _ipv6(text: str) -> bool:
    import ipaddress

    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return text.count(":") >= 3


def _cpf(text: str) -> bool:
    return cpf.is_valid(text)


def _checked(module) -> Callable[[str], bool]:
    return lambda text: module.is_valid(_digits(text))


B64 = r"[A-Za-z0-9+/]"
URLSAFE = r"[A-Za-z0-9_\-]"

DETECTORS: list[Detector] = [
    # --- cloud and SaaS credentials -------------------------------------------------
    Detector("aws_access_key_id", "credential", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b"), strong=True),
    Detector(
        "aws_secret_access_key",
        "credential",
        re.compile(rf"(?i)aws.{{0,20}}?(?:secret|sk).{{0,20}}?[:=\s\"']\s*[\"']?(?P<v>{B64}{{40}})\b"),
        group="v",
    ),
    Detector("gcp_api_key", "credential", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"), strong=True),
    Detector("gcp_oauth_token", "credential", re.compile(r"\bya29\.[0-9A-Za-z_\-]{30,}"), strong=True),
    Detector(
        "gcp_service_account_key",
        "credential",
        re.compile(r"\"private_key_id\"\s*:\s*\"(?P<v>[0-9a-f]{40})\""),
        group="v",
    ),
    Detector("azure_storage_key", "credential", re.compile(rf"(?i)AccountKey=(?P<v>{B64}{{86}}==)"), group="v"),
    Detector(
        "azure_client_secret",
        "credential",
        re.compile(r"\b[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}\b"),
        strong=True,
    ),
    Detector("azure_sas_token", "credential", re.compile(r"(?i)\bsig=(?P<v>[A-Za-z0-9%+/]{40,}(?:%3D|=)*)"), group="v"),
    Detector("github_token", "credential", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36}\b"), strong=True),
    Detector("github_fine_grained_token", "credential", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{82}\b"), strong=True),
    Detector("gitlab_token", "credential", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20}\b"), strong=True),
    Detector("slack_token", "credential", re.compile(r"\bxox[abposr]-(?:\d+-)+[A-Za-z0-9]{10,}\b"), strong=True),
    Detector(
        "slack_webhook",
        "credential",
        re.compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]{8,}/B[A-Z0-9]{8,}/[A-Za-z0-9]{24}"),
        strong=True,
    ),
    Detector("stripe_secret_key", "credential", re.compile(r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{24,99}\b"), strong=True),
    Detector("stripe_webhook_secret", "credential", re.compile(r"\bwhsec_[A-Za-z0-9]{32,}\b"), strong=True),
    Detector(
        "openai_api_key",
        "credential",
        re.compile(
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}\b|\bsk-proj-[A-Za-z0-9_\-]{48,}"
        ),
        strong=True,
    ),
    Detector(
        "anthropic_api_key", "credential", re.compile(r"\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_\-]{80,}"), strong=True
    ),
    Detector("twilio_api_key", "credential", re.compile(r"\bSK[0-9a-f]{32}\b"), strong=True),
    Detector("twilio_account_sid", "credential", re.compile(r"\bAC[0-9a-f]{32}\b"), strong=True),
    Detector(
        "sendgrid_api_key", "credential", re.compile(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"), strong=True
    ),
    Detector("npm_token", "credential", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), strong=True),
    Detector("pypi_token", "credential", re.compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"), strong=True),
    Detector("mailgun_api_key", "credential", re.compile(r"\bkey-[0-9a-f]{32}\b"), strong=True),
    Detector("mailchimp_api_key", "credential", re.compile(r"\b[0-9a-f]{32}-us\d{1,2}\b"), strong=True),
    Detector("shopify_token", "credential", re.compile(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"), strong=True),
    Detector("digitalocean_token", "credential", re.compile(r"\bdo[opr]_v1_[a-f0-9]{64}\b"), strong=True),
    Detector("huggingface_token", "credential", re.compile(r"\bhf_[A-Za-z]{34}\b"), strong=True),
    Detector(
        "square_token",
        "credential",
        re.compile(r"\b(?:EAAA[A-Za-z0-9_\-]{60}|sq0atp-[A-Za-z0-9_\-]{22})\b"),
        strong=True,
    ),
    Detector("discord_bot_token", "credential", re.compile(r"\b[MN][A-Za-z\d]{23,25}\.[\w\-]{6}\.[\w\-]{27,38}\b")),
    Detector("telegram_bot_token", "credential", re.compile(r"\b\d{8,10}:AA[0-9A-Za-z_\-]{33}\b"), strong=True),
    Detector(
        "datadog_api_key",
        "credential",
        re.compile(r"(?i)(?:dd|datadog)[_\-]?(?:api|app)[_\-]?key\W{0,3}(?P<v>[a-f0-9]{32,40})\b"),
        group="v",
    ),
    Detector(
        "jwt",
        "credential",
        re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
        strong=True,
    ),
    # --- private keys and passwords ----------------------------------------------------
    Detector(
        "private_key",
        "private_key",
        re.compile(
            r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----"
            r"[\s\S]*?(?:-----END (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----|$)"
        ),
    ),
    Detector(
        "password_in_url",
        "credential",
        re.compile(r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@]{1,64}:(?P<v>[^\s@/]{3,128})@[\w.\-]+", re.I),
        group="v",
    ),
    Detector(
        "connection_string_password",
        "credential",
        re.compile(r"(?i)(?:^|[;\s\"'])(?:password|pwd)\s*=\s*(?P<v>[^;\s\"']{4,128})"),
        group="v",
    ),
    Detector(
        "password_assignment",
        "credential",
        re.compile(
            r"(?i)\b(?:password|passwd|passphrase|pass|secret|api[_\-]?secret|client[_\-]?secret)\b"
            r"(?:\s+is)?\s*[:=]\s*[\"']?(?P<v>[^\s\"',;]{8,128})"
        ),
        validate=_assigned_secret,
        group="v",
    ),
    Detector(
        "generic_api_key",
        "credential",
        re.compile(
            r"(?i)\b(?:api[_\-]?key|apikey|access[_\-]?token|auth[_\-]?token|bearer|token)\b[\"']?\s*[:=]?\s*[\"']?"
            r"(?P<v>[A-Za-z0-9_\-.=+/]{20,200})"
        ),
        validate=_random_secret,
        group="v",
    ),
    Detector(
        "high_entropy_secret",
        "credential",
        re.compile(rf"(?<![\w/+=\-]){URLSAFE}{{32,128}}(?![\w/+=\-])"),
        _random_secret,
    ),
    # --- personal data -------------------------------------------------------------------
    Detector("email", "pii", re.compile(r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}\b")),
    Detector("credit_card", "pii", re.compile(r"(?<![\d\-])(?:\d[ \-]?){12,18}\d(?![\d\-])"), _card),
    Detector("iban", "pii", re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"), _iban),
    Detector("us_ssn", "pii", re.compile(r"(?<![\d\-])\d{3}-\d{2}-\d{4}(?![\d\-])"), _ssn),
    Detector("us_itin", "pii", re.compile(r"(?<![\d\-])9\d{2}-(?:5\d|6[0-5]|7\d|8[0-8]|9[0-24-9])-\d{4}(?![\d\-])")),
    Detector(
        "uk_nhs_number",
        "pii",
        re.compile(r"(?i)\bNHS\b[^\d]{0,20}(?P<v>\d{3}[ \-]?\d{3}[ \-]?\d{4})\b"),
        _checked(nhs),
        group="v",
    ),
    Detector(
        "in_aadhaar", "pii", re.compile(r"(?<![\w\-])[2-9]\d{3}[ \-]?\d{4}[ \-]?\d{4}(?![\w\-])"), _checked(aadhaar)
    ),
    Detector(
        "ca_sin",
        "pii",
        re.compile(r"(?i)\b(?:SIN|social insurance)\b[^\d]{0,20}(?P<v>\d{3}[ \-]?\d{3}[ \-]?\d{3})\b"),
        _checked(sin),
        group="v",
    ),
    Detector("br_cpf", "pii", re.compile(r"(?<![\d.])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\d\-])"), _cpf),
    # Phone numbers are found with libphonenumber in the scanner; listed here for the registry.
    Detector("phone_number", "pii", re.compile(r"(?!x)x")),
    Detector(
        "ipv4_address",
        "network",
        re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])"),
        _ipv4,
    ),
    Detector(
        "ipv6_address",
        "network",
        re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){2,7}[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{1,4}){0,6}(?![\w:])"),
        _ipv6,
    ),
]

KINDS = tuple(d.kind for d in DETECTORS)
NETWORK_KINDS = frozenset(d.kind for d in DETECTORS if d.category == "network")
