"""National identifiers: social security, insurance, health, tax and identity numbers, each read by its layout or
after its label and checked by its check digits (python-stdnum) where it has them."""

from __future__ import annotations

import re

from stdnum.au import tfn
from stdnum.ca import sin
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.fr import nir
from stdnum.gb import nhs, utr
from stdnum.in_ import aadhaar
from stdnum.it import codicefiscale

from beliefs.defense.base import Detector
from beliefs.defense.labels import not_another_number
from beliefs.defense.validators import checked, cpf_valid, medicare_valid, us_ssn

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
    # Germany's tax identification number (Steuer-ID, IdNr), Australia's tax file number and France's social security
    # number (NIR) after their labels; Spain's DNI and NIE after theirs, with the check letter.
    Detector(
        "de_tax_id",
        "pii",
        re.compile(
            r"(?i)\b(?:steuer[\s\-]?id(?:[\s\-]?nr\.?)?|(?:steuerliche\s+)?(?:steuer)?identifikationsnummer|idnr\.?|"
            r"tax id(?:entification number)?)(?![a-z])[\s:#=\-]*(?:(?:ist|is|lautet)\s+)?"
            r"(?P<v>\d{2}[ ]?\d{3}[ ]?\d{3}[ ]?\d{3})(?![\d])"
        ),
        checked(idnr),
        group="v",
        keywords=("steuer", "identifikationsnummer", "idnr", "tax id"),
        at_keywords=True,
    ),
    Detector(
        "au_tax_file_number",
        "pii",
        re.compile(
            r"(?i)\b(?:tfn|tax file (?:number|no\.?))(?![a-z])[\s:#=\-]*(?:(?:is|was)\s+)?"
            r"(?P<v>\d{3}[ \-]?\d{3}[ \-]?\d{2,3})(?![\d])"
        ),
        checked(tfn),
        group="v",
        keywords=("tfn", "tax file"),
        at_keywords=True,
    ),
    Detector(
        "fr_nir",
        "pii",
        re.compile(
            r"(?i)\b(?:nir|num[ée]ro de s[ée]curit[ée] sociale|n° de s[ée]cu(?:rit[ée] sociale)?|num[ée]ro de s[ée]cu|"
            r"(?:num[ée]ro|n°) insee)(?![a-z])[\s:#=\-]*(?:(?:est|is)\s+)?"
            r"(?P<v>[12][ ]?\d{2}[ ]?\d{2}[ ]?(?:\d{2}|2[AB])[ ]?\d{3}[ ]?\d{3}(?:[ ]?\d{2})?)(?![\d])"
        ),
        nir.is_valid,
        group="v",
        keywords=("nir", "sécurité sociale", "securite sociale", "sécu", "insee"),
    ),
    Detector(
        "es_dni",
        "pii",
        re.compile(
            # ("NIE" only in capitals: "nie" is German for never)
            r"(?i)\b(?:dni|(?-i:NIE)|nif|documento nacional de identidad|n[úu]mero de identidad)(?![a-z])[\s:#=\-.º°]*"
            r"(?:(?:es|is)\s+)?(?P<v>(?-i:\d{8}[ \-]?[A-Z]|[XYZ][ \-]?\d{7}[ \-]?[A-Z]))(?![\w])"
        ),
        lambda value: dni.is_valid(value) or nie.is_valid(value),
        group="v",
        keywords=("dni", "nie", "nif", "documento nacional", "número de identidad", "numero de identidad"),
        at_keywords=True,
    ),
    # The UK's Unique Taxpayer Reference (self assessment) and Australia's Medicare card number after their names:
    # ten digits each, which read alone are a phone number.
    Detector(
        "uk_utr",
        "pii",
        re.compile(
            r"(?i)\b(?:utr|unique tax ?payer reference|self[\s\-]assessment (?:tax )?reference)(?![a-z])"
            r"(?:\s+(?:number|no\.?))?[\s:#=\-]*(?:(?:is|was)\s+)?(?P<v>\d{5}[ ]?\d{5})(?![\d])K?"
        ),
        checked(utr),
        group="v",
        keywords=("utr", "unique tax", "self assessment", "self-assessment"),
        at_keywords=True,
    ),
    Detector(
        "au_medicare_number",
        "pii",
        re.compile(
            r"(?i)\bmedicare(?:\s+card)?(?:\s+(?:number|no\.?|#))?[\s:#=\-]*(?:(?:is|was)\s+)?"
            r"(?P<v>[2-6]\d{3}[ ]?\d{5}[ ]?\d(?:[ /\-]?[1-9])?)(?![\d])"
        ),
        medicare_valid,
        group="v",
        keywords=("medicare",),
        at_keywords=True,
    ),
    # Italy's codice fiscale after its name (six letters of the name, the birth date and place coded, a check letter);
    # read without a label, its layout alone cost a tenth of a millisecond per 10 KB of text that holds none.
    Detector(
        "it_codice_fiscale",
        "pii",
        re.compile(
            r"(?i)(?<![a-z])(?:codice[\s_\-]?fiscale|cod\.?\s?fisc\.?|c\.\s?f\.|cf|fiscal code|tax code)(?![a-z])"
            r"[\"']?\s*[:=#\-]?\s*(?:(?:è|e|is)\s+)?[\"']?"
            r"(?P<v>(?-i:[A-Z]{6}\d{2}[A-EHLMPRST]\d{2}[A-Z]\d{3}[A-Z]))(?![A-Za-z0-9])"
        ),
        codicefiscale.is_valid,
        group="v",
        keywords=("codice", "cod", "c.f", "c. f", "cf", "fiscal code", "tax code"),
        at_keywords=True,
    ),
]
