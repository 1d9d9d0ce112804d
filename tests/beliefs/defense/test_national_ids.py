"""National identifiers read after their labels (or, for a codice fiscale, by layout) and checked by their check
digits (``beliefs.defense.national_ids``)."""

from __future__ import annotations

import pytest

from beliefs.defense.scanner import redact, scan

FOUND = [
    ("de_tax_id", "Steuer-ID 36 574 261 809", "36 574 261 809"),
    ("de_tax_id", "meine Steueridentifikationsnummer lautet 36574261809", "36574261809"),
    ("de_tax_id", "IdNr.: 36574261809", "36574261809"),
    ("au_tax_file_number", "my tax file number is 123 456 782", "123 456 782"),
    ("au_tax_file_number", "TFN: 123456782", "123456782"),
    ("fr_nir", "numéro de sécurité sociale : 2 95 10 99 126 111 93", "2 95 10 99 126 111 93"),
    ("fr_nir", "NIR 295109912611193", "295109912611193"),
    ("es_dni", "DNI 54362315K", "54362315K"),
    ("es_dni", "mi NIE es X2482300W", "X2482300W"),
    ("es_dni", "NIF: 54362315-K", "54362315-K"),
    ("es_dni", "número de identidad 54362315K", "54362315K"),
    ("it_codice_fiscale", "codice fiscale RCCMNL83S18D969H", "RCCMNL83S18D969H"),
    ("it_codice_fiscale", "CF: RCCMNL83S18D969H per la fattura", "RCCMNL83S18D969H"),
    ("uk_utr", "My UTR is 1955839661, for the self assessment.", "1955839661"),
    ("uk_utr", "Unique Taxpayer Reference: 19558 39661", "19558 39661"),
    ("uk_utr", "self-assessment reference 1955839661K", "1955839661"),
    ("au_medicare_number", "Medicare number 2123 45670 1", "2123 45670 1"),
    ("au_medicare_number", "her medicare card: 2123456701/2", "2123456701/2"),
]

NOT_FOUND = [
    ("de_tax_id", "Steuer-ID 36 574 261 808"),  # check digit wrong
    ("au_tax_file_number", "TFN 123 456 789"),
    ("fr_nir", "n° de sécu 1 95 10 99 126 111 00"),
    ("es_dni", "DNI 54362315A"),
    ("es_dni", "Ich habe nie 12345678Z gesagt"),  # German "nie", never
    ("it_codice_fiscale", "order RCCMNL83S18D969X"),
    ("uk_utr", "UTR 1955839662"),  # check digit wrong
    ("au_medicare_number", "Medicare 2123 45671 1"),  # check digit wrong
    ("au_medicare_number", "Medicare 7123 45670 1"),  # no card number starts with 7
]


@pytest.mark.parametrize(("kind", "text", "value"), FOUND)
def test_national_identifier_is_found_by_its_label_and_check_digits(kind, text, value):
    findings = scan(text)
    assert (kind, value) in [(f.kind, text[f.start : f.end]) for f in findings]
    assert value not in redact(text, findings)


@pytest.mark.parametrize(("kind", "text"), NOT_FOUND)
def test_a_failed_check_or_a_word_that_only_looks_like_the_label_is_not_one(kind, text):
    assert kind not in {f.kind for f in scan(text)}
