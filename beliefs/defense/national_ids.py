"""National identifiers: social security, insurance, health, tax and identity numbers, each read by its layout or
after its label and checked by its check digits (python-stdnum) where it has them."""

from __future__ import annotations

import re

from stdnum.ca import sin
from stdnum.gb import nhs
from stdnum.in_ import aadhaar

from beliefs.defense.base import Detector
from beliefs.defense.labels import not_another_number
from beliefs.defense.validators import checked, cpf_valid, us_ssn

NATIONAL_IDS: list[Detector] = [
    Detector(
        "us_ssn",
        "pii",
        re.compile(r"(?<![\d\-])\d{3}([- ])\d{2}\1\d{4}(?![\d\-])"),
        us_ssn,
        precheck=re.compile(r"\d[- ]\d\d[- ]\d{4}"),
        check=not_another_number,
        windowed=True,
    ),
    Detector(
        "us_ssn",
        "pii",
        re.compile(
            r"(?i)\b(?:ssn|social security(?: number| no\.?)?|ss#|soc\.? sec\.?)\s*[:#=]?\s*(?:(?:is|was)\s+)?"
            r"(?P<v>\d{9})\b"
        ),
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
        # (not the first or last twelve digits of a longer grouped number such as a card)
        re.compile(r"[2-9](?<![\w\-][2-9])(?<!\d [2-9])\d{3}[ \-]?\d{4}[ \-]?\d{4}(?![\w\-])(?! \d)"),
        checked(aadhaar),
        check=not_another_number,
        precheck=re.compile(r"\d\d{3}[ \-]?\d{4}[ \-]?\d{4}"),
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
]
