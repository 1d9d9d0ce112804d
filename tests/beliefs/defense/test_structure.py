"""Secrets and personal data found by their structure and the words around them, inside prose and JSON values.

The values below were made up for these tests (not drawn from any measured corpus): keys named only in the
sentence around them, passwords as JSON values, a card number next to a birth date and an address, passport
numbers after a label in brackets or as a JSON key, an address with its flat before the city, IPv6 in prose.
"""

# ruff: noqa: E501 (the test texts are kept whole, one a line)

from __future__ import annotations

import pytest

from beliefs.defense.scanner import scan

CASES = [
    (
        "aws secret in prose",
        "Rotated the prod creds today; the new secret access key is Jq8vN2xLr5TzW0pYc3Ub7Hs1Kd9Fg4Ma6Ee2Rt8Q and it goes in the vault.",
        "Jq8vN2xLr5TzW0pYc3Ub7Hs1Kd9Fg4Ma6Ee2Rt8Q",
    ),
    (
        "aws secret json",
        '{"aws_access_key_id": "AKIA4Q7RZ2M5XK8PLW3N", "aws_secret_access_key": "p0Zr7Xc2Vb9Nm4Lk8Jh3Gf6Ds1Aq5Ww0Ee7Rr2Tt"}',
        "p0Zr7Xc2Vb9Nm4Lk8Jh3Gf6Ds1Aq5Ww0Ee7Rr2Tt",
    ),
    (
        "azure storage key prose",
        "Connect with account name opsdiag and key 8fQ2mX9vL4pR7tZ1wN6yB3cH5kJ0dG8sA2eU4iO6qT9rY1xV3bM7nP5lK8jF0hD2gS4aW6zE9cR1tY3uI5oP7Q== until Friday.",
        "8fQ2mX9vL4pR7tZ1wN6yB3cH5kJ0dG8sA2eU4iO6qT9rY1xV3bM7nP5lK8jF0hD2gS4aW6zE9cR1tY3uI5oP7Q==",
    ),
    (
        "twilio token prose",
        "Twilio: SID AC3f9b2c7d1e8a4f6b0c5d9e2a7b1c4f8d, auth token 9c2e7b4f1a8d3c6e0b5f2a9d7c4e1b8f for the SMS bridge.",
        "9c2e7b4f1a8d3c6e0b5f2a9d7c4e1b8f",
    ),
    ("password json", '{"user": "svc_backup", "password": "Tr0ub4dor&3x!", "host": "10.0.4.7"}', "Tr0ub4dor&3x!"),
    ("password json2", '{"db": {"username": "reporting", "pass": "w1nter-Falcon-88"}}', "w1nter-Falcon-88"),
    (
        "password prose",
        "Her login for the portal is marta.k and the password she set was Blue#Harbor2024, please reset it.",
        "Blue#Harbor2024",
    ),
    (
        "card near dob",
        "Customer Dana Whitfield, born 14/03/1987, paid with 4539 1488 0343 6467 from 22 Larch Road, Leeds LS6 2QR.",
        "4539 1488 0343 6467",
    ),
    ("passport prose", "She travels on passport number 533380006 issued in Boston.", "533380006"),
    ("passport prose2", "His UK passport (no. 925076473) expires next year.", "925076473"),
    ("passport json", '{"traveller": "R. Okafor", "passport_no": "A12345678", "nationality": "NG"}', "A12345678"),
    (
        "address prose",
        "Ship the replacement to 1417 Maple Grove Avenue, Apt 3B, Springfield, IL 62704 by Monday.",
        "1417 Maple Grove Avenue, Apt 3B, Springfield, IL 62704",
    ),
    (
        "address prose uk",
        "She moved to Flat 2, 48 Kingsley Road, Bristol BS7 8HX last month.",
        "Flat 2, 48 Kingsley Road, Bristol BS7 8HX",
    ),
    (
        "ipv6 prose",
        "The user's home connection was 2a02:c7f:8e4b:1d00:5c3a:91ff:fe2b:7d14 when the fraud happened.",
        "2a02:c7f:8e4b:1d00:5c3a:91ff:fe2b:7d14",
    ),
    ("ipv6 json", '{"client_ip": "2001:4860:4860::8888", "ua": "Mozilla"}', "2001:4860:4860::8888"),
    (
        "token json",
        '{"slack_token": "xoxb-2841937465-3918475620184-Zq7Wn2Xv8Lr4Tp1Ys6Uc9Mb"}',
        "xoxb-2841937465-3918475620184-Zq7Wn2Xv8Lr4Tp1Ys6Uc9Mb",
    ),
    ("generic secret json", '{"client_secret": "9Xq2Lm7Vr4Tn8Wp1Zs6Yb3Kc5Hd0Jf"}', "9Xq2Lm7Vr4Tn8Wp1Zs6Yb3Kc5Hd0Jf"),
    (
        "api key prose",
        "Use the key 7f3b9c1e5a2d8f4b6c0e9a1d3f5b7c9e when calling the weather API.",
        "7f3b9c1e5a2d8f4b6c0e9a1d3f5b7c9e",
    ),
]
ADDRESSES = [
    ("She lives at 742 Evergreen Terrace, Springfield.", "742 Evergreen Terrace, Springfield"),
    ("Deliver to 55 Rue de Rivoli, 75001 Paris.", "55 Rue de Rivoli, 75001 Paris"),
    ("Our client at 12 Oak St. Apt 4, Boston MA 02118 called twice.", "12 Oak St. Apt 4, Boston MA 02118"),
    (
        "Address: 4021 W. Sunset Blvd, Los Angeles, California 90029",
        "4021 W. Sunset Blvd, Los Angeles, California 90029",
    ),
    ("Send the cheque to P.O. Box 1234, Austin, TX 78767.", "P.O. Box 1234, Austin, TX 78767"),
    ("Her new address is 88 Queen's Road, Flat 3, Brighton BN1 3XE.", "88 Queen's Road, Flat 3, Brighton BN1 3XE"),
    ("Customer moved to 3 Chemin des Vignes, 1207 Genève last year.", "3 Chemin des Vignes, 1207 Genève"),
    ("Ship it to Hauptstraße 5, 10115 Berlin please.", "Hauptstraße 5, 10115 Berlin"),
]
NOT_ADDRESSES = [
    "The ticket mentions 500 Internal Server Error on 3 hosts.",
    "We moved the meeting to 14 March, Room 3, Building B.",
    "Version 2 Release Notes, Section 4, page 12.",
    "Use a 3 way merge when the branches diverge.",
]
CARD_DOB_ADDRESS = (
    "Customer Dana Whitfield, born 14/03/1987, paid with 4539 1488 0343 6467 from 22 Larch Road, Leeds LS6 2QR."
)
LOOK_ALIKES = [
    "The password policy requires 12 characters, one digit and one symbol.",
    '{"password": "", "password_hint": "your usual one"}',
    '{"password": "${DB_PASSWORD}", "user": "app"}',
    "Order 4539-1488 shipped on 14/03/2024 to the Leeds depot.",
    "Commit 9c2e7b4f1a8d3c6e0b5f2a9d7c4e1b8f9a0b1c2d fixed the passport upload form.",
    "The sha256 of the release is 3f5b7c9e7f3b9c1e5a2d8f4b6c0e9a1d3f5b7c9e7f3b9c1e5a2d8f4b6c0e9a1d.",
    "Build id 7f3b9c1e-5a2d-8f4b-6c0e-9a1d3f5b7c9e finished in 4 minutes.",
    "Passport renewals take 10 weeks; the form number is DS-82.",
    "The API key field is optional; set MEMORYHUB_API_KEY in your environment.",
]


def covered(text: str, value: str) -> bool:
    start = text.index(value)
    spans = [(f.start, f.end) for f in scan(text)]
    return all(ch.isspace() or any(s <= i < e for s, e in spans) for i, ch in enumerate(value, start))


@pytest.mark.parametrize(("name", "text", "value"), CASES, ids=[c[0] for c in CASES])
def test_a_value_inside_prose_or_json_is_found_whole(name, text, value):
    assert covered(text, value), [(f.kind, text[f.start : f.end]) for f in scan(text)]


def test_a_card_next_to_a_birth_date_and_an_address_is_three_findings():
    kinds = {f.kind: CARD_DOB_ADDRESS[f.start : f.end] for f in scan(CARD_DOB_ADDRESS)}
    assert kinds == {
        "date_of_birth": "14/03/1987",
        "credit_card": "4539 1488 0343 6467",
        "street_address": "22 Larch Road, Leeds LS6 2QR",
    }


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_hashes_references_and_empty_values_are_left_alone(text):
    assert scan(text) == []


@pytest.mark.parametrize(("text", "address"), ADDRESSES)
def test_a_street_address_is_found_by_its_shape_with_its_town(text, address):
    assert [text[f.start : f.end] for f in scan(text) if f.kind == "street_address"] == [address]


@pytest.mark.parametrize("text", NOT_ADDRESSES)
def test_numbers_before_capitalised_words_are_no_address(text):
    assert scan(text) == []
