"""Passwords named by the structure around them: table columns and key/value rows, XML elements, name/value
pairs of configuration files and manifests, arrows and dashes after a label, login pairs, other languages' verbs.

Every value was made up for these tests; each positive was missed before ``beliefs.defense.passwords`` (written
first, then the detectors). The look-alikes are tables, manifests and labels that name a password without giving one.
"""

# ruff: noqa: E501 (the test texts are kept whole, one a line)

from __future__ import annotations

import pytest

from beliefs.defense.passwords import table_passwords
from beliefs.defense.scanner import scan


def _found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in scan(text)]


POSITIVES = [
    ("<password>Gr33n!Valley</password>", ["Gr33n!Valley"]),
    ("<db:adminPwd>Gr33n!Valley</db:adminPwd>", ["Gr33n!Valley"]),
    ('<Password type="plain">Gr33n!Valley</Password>', ["Gr33n!Valley"]),
    ('<add key="DbPassword" value="Gr33n!Valley" />', ["Gr33n!Valley"]),
    ('<property name="db.password" value="Gr33n!Valley"/>', ["Gr33n!Valley"]),
    ("env:\n  - name: DB_PASSWORD\n    value: Gr33n!Valley\n  - name: DB_USER\n    value: app", ["Gr33n!Valley"]),
    ('"env": [{"name": "ADMIN_PASSWORD", "value": "Gr33n!Valley"}]', ["Gr33n!Valley"]),
    ("| admin | password | Gr33n!Valley |", ["Gr33n!Valley"]),
    ("| user | jdoe |\n| password | Gr33n!Valley |", ["Gr33n!Valley"]),
    (
        "| Account | Password |\n|---|---|\n| root | Gr33n!Valley |\n| svc-backup | Bl4ck#Harbor |",
        ["Gr33n!Valley", "Bl4ck#Harbor"],
    ),
    (
        "+-------+---------------+\n| user  | password      |\n+-------+---------------+\n| jdoe  | Gr33n!Valley  |",
        ["Gr33n!Valley"],
    ),
    ("username,email,password\njdoe,j@x.io,Gr33n!Valley\nasmith,a@x.io,Bl4ck#Harbor", ["Gr33n!Valley", "Bl4ck#Harbor"]),
    ("user\tpass\njdoe\tGr33n!Valley", ["Gr33n!Valley"]),
    ("Password — Gr33n!Valley", ["Gr33n!Valley"]),
    ("password -> Gr33n!Valley", ["Gr33n!Valley"]),
    ("Password → Gr33n!Valley", ["Gr33n!Valley"]),
    ("пароль — Gr33n!Valley", ["Gr33n!Valley"]),
    ("Password (case-sensitive) Gr33n!Valley", ["Gr33n!Valley"]),
    ("Das Passwort lautet Gr33n!Valley, bitte nicht weitergeben.", ["Gr33n!Valley"]),
    ("Kennwort lautet Gr33n!Valley", ["Gr33n!Valley"]),
    ("creds admin/Gr33n!Valley for the staging box", ["Gr33n!Valley"]),
    ("login: admin / Gr33n!Valley", ["Gr33n!Valley"]),
    ("login admin:Gr33n!Valley on the router", ["Gr33n!Valley"]),
    ("net use Z: \\\\srv\\share /user:corp\\jdoe Gr33n!Valley", ["Gr33n!Valley"]),
]

LOOKALIKES = [
    "<password>${DB_PASSWORD}</password>",
    '<password encrypted="true">${ENC_PW}</password>',
    "<password/>",
    "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef: {name: db, key: password}",
    "- name: DB_PASSWORD\n  value: changeme",
    "| password | required |",
    "| password | Required |",
    "| password | string |",
    "| Setting | Description |\n|---|---|\n| password | The account's password |\n| timeout | Seconds before giving up |",
    "| Test | Pass | Fail |\n|---|---|---|\n| login | 12 | 0 |\n| Signup | Yes | No |",
    "Student,Score,Pass\nAlice,92,Yes\nBob,71,No",
    "name,pass_rate,owner\nsignup,0.97,Dana",
    "Compass, Passenger, Bypass\nNorth, Seat 12A, Highway-9",
    "Password, username, and email are required.",
    "Password — reset required at next login",
    "password -> see 1Password vault entry",
    "Password (case-sensitive) required",
    "Das Passwort lautet wie immer, frag Jana.",
    "login: admin / see vault",
    "login: admin / Administrator",
    "creds admin/readonly for the demo",
    "Sign in: Okta/Google SSO",
    "login page/Settings menu",
]


@pytest.mark.parametrize(("text", "values"), POSITIVES)
def test_password_named_by_its_structure_is_caught(text, values):
    found = _found(text)
    assert all(any(value in span for span in found) for value in values), found


@pytest.mark.parametrize("text", LOOKALIKES)
def test_structure_that_names_a_password_without_giving_one_stays_clean(text):
    assert _found(text) == []


def test_a_table_column_is_read_until_the_table_ends():
    text = "user,password\njdoe,Gr33n!Valley\n\nNotes follow, with commas\nplain,Bl4ck#Harbor"
    values = [text[start:end] for start, end in table_passwords(text)]
    assert "Gr33n!Valley" in values
    assert "Bl4ck#Harbor" not in values  # a blank line ended the table; a later pair is not its row
