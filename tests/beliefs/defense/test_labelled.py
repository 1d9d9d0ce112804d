"""Personal numbers only their label tells apart (``beliefs.defense.labelled``): found after the words that name them,
redacted, and not taken from a length, a count or a licence that is not a driver's."""

from __future__ import annotations

import pytest

from beliefs.defense.scanner import redact, scan

FOUND = [
    ("card_security_code", "my card is 4539 1488 0343 6467, exp 09/29, CVV 123, please keep it on file", "123"),
    ("card_security_code", "CVV: 4821", "4821"),
    ("card_security_code", "cvc2=837 for the corporate card", "837"),
    ("card_security_code", "the CVV is 093", "093"),
    ("card_security_code", "card verification value: 512", "512"),
    ("card_security_code", "Security code 7781.", "7781"),
    ("card_security_code", "the cvv (123) is on the back", "123"),
    ("bank_account_number", "ACH: routing 011000015, acct 000123456789", "000123456789"),
    ("bank_account_number", "sort code 12-34-56, account number 31926819", "31926819"),
    ("bank_account_number", "Direct deposit to checking account 0012 3456 7890 please", "0012 3456 7890"),
    ("bank_account_number", "acct #: 5566778899 at Chase Bank", "5566778899"),
    ("bank_account_number", "my bank routing number is 021000021 and my account number is 4839201746", "4839201746"),
    ("driving_licence_number", "my driver's license is D1234567 (California)", "D1234567"),
    ("driving_licence_number", "Driver licence no. MORGA753116SM9IJ", "MORGA753116SM9IJ"),
    ("driving_licence_number", "driving license number: 123-456-789", "123-456-789"),
    ("driving_licence_number", "drivers license for Texas is 12345678", "12345678"),
]

NOT_FOUND = [
    ("card_security_code", "CVV must be 3 digits"),
    ("card_security_code", "the CVV field is 3-digit"),
    ("card_security_code", "CVV2 validation added in 2024"),
    ("card_security_code", "CVVs 123"),
    ("card_security_code", "cvv 12.5"),
    ("card_security_code", "our CVV count 1234567"),
    ("card_security_code", "ticket security code review 12"),
    ("card_security_code", "Precvv 123"),
    ("bank_account_number", "account number 4411"),
    ("bank_account_number", "bank account balance is 1500000"),
    ("bank_account_number", "the bank account was opened in 2019"),
    ("bank_account_number", "CRM account 10023344 renewed"),
    ("driving_licence_number", "software license key ABCD-1234"),
    ("driving_licence_number", "license 2024 renewal"),
    ("driving_licence_number", "driver's license renewal is due"),
]


@pytest.mark.parametrize(("kind", "text", "value"), FOUND)
def test_labelled_number_is_found_and_redacted(kind, text, value):
    findings = scan(text)
    assert (kind, value) in [(f.kind, text[f.start : f.end]) for f in findings]
    redacted = redact(text, findings)
    assert value not in redacted and f"[REDACTED:{kind}]" in redacted


@pytest.mark.parametrize(("kind", "text"), NOT_FOUND)
def test_label_without_a_value_is_not_a_finding(kind, text):
    assert kind not in {f.kind for f in scan(text)}


def test_routing_number_after_is_is_the_banks_not_a_phone():
    text = "my bank routing number is 021000021 and my account number is 4839201746"
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [("bank_account_number", "4839201746")]
