"""Passwords named by the structure around them rather than by a sentence.

A label and its value need not stand on one line joined by ``:`` or ``=``: a table gives the
label once in its header and the values in the rows below (Markdown, CSV, TSV), XML puts the
value inside an element named for it, a configuration file or a Kubernetes manifest pairs a
``name`` with a ``value``, and people write ``login: admin / value``. The detectors here read
those shapes; the value still has to look like a password (``password_value``), so a table of
settings or a list of field names stays clean.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from beliefs.defense.base import Detector
from beliefs.defense.validators import is_location, is_placeholder, password_value

# Password keys and words in several languages (the key forms and the words people write in a sentence).
PASSWORD_KEY_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "pass",
    "pw",
    "passwort",
    "kennwort",
    "mot de passe",
    "contraseña",
    "contrasena",
    "clave",
    "senha",
    "wachtwoord",
    "lösenord",
    "passord",
    "adgangskode",
    "salasana",
    "hasło",
    "haslo",
    "heslo",
    "parola",
    "пароль",
    "p/w",
    "pword",
    "pswd",
    "psw",
)
PASSWORD_KEYS = "(?:" + "|".join(re.escape(k).replace("\\ ", "[ _]") for k in PASSWORD_KEY_WORDS) + ")"
# Words that stand where a value would but say something about it ("password: required").
_NOT_A_PASSWORD = re.compile(
    r"(?i)^(?:required|optional|hidden|masked|encrypted|hashed|unknown|unset|provided|omitted|removed|none|null|"
    r"reset|expired|updated|changed|incorrect|invalid|missing|generated|prompt|ask|same|blank|empty|random|"
    r"string|text|secret|password|example|sample|default|ignored|disabled|enabled|forgotten|protected)$"
)


def word_password(value: str) -> bool:
    """Not one of the words that describe a password instead of giving one."""
    return not _NOT_A_PASSWORD.match(value.strip("\"'`"))


# After its first letter a password told in a sentence holds a digit, a symbol or a capital before a lower-case
# letter ("Tango77#", "Blue#Harbor"), which the next word of a sentence ("is", "Thursday") does not.
_NOT_A_WORD = re.compile(r"\d|[^A-Za-z]|[A-Z].*[a-z]")


def unlike_a_word(value: str) -> bool:
    """Not spelled like a word of a sentence or a table ("Tango77#", not "Thursday" or "Settings")."""
    return bool(_NOT_A_WORD.search(value[1:]))


def labelled_password(value: str) -> bool:
    """A value a password label points at: password-like, and no placeholder or describing word."""
    return (
        not is_placeholder(value) and password_value(value + "~~") and word_password(value) and not is_location(value)
    )


# A table cell that names a password column: the key alone or after one or two qualifying words or an identifier
# prefix ("Password", "DB password", "admin_pwd", "Temp. passwort").
_KEY_CELL = re.compile(rf"(?i)^(?:[\w.]+(?:[ _.\-][\w.]+)?[ _.\-])?{PASSWORD_KEYS}$")
_TABLE_RULE = re.compile(r"^[\s|:+\-=]+$")  # a Markdown divider (|---|:--:|) or an ASCII border
_MAX_ROWS = 200


def _cells(line: str, separator: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each cell of ``line`` split by ``separator``, trimmed of spaces and quotes; a Markdown
    row's outer pipes make no cells."""
    spans, start = [], 0
    parts = line.split(separator)
    if separator == "|" and parts and not parts[0].strip():
        start = len(parts[0]) + 1
        parts = parts[1:]
        if parts and not parts[-1].strip():
            parts = parts[:-1]
    for part in parts:
        left = len(part) - len(part.lstrip(" \"'`"))
        right = len(part.rstrip(" \"'`\r"))
        spans.append((start + left, start + max(left, right)))
        start += len(part) + 1
    return spans


def _header_columns(line: str, cells: list[tuple[int, int]]) -> list[int]:
    """Columns of a header row (its ``cells``) that name a password; a header's cells are labels, not sentences."""
    if len(cells) < 2:
        return []
    texts = [line[s:e] for s, e in cells]
    if any(len(t) > 40 or len(t.split()) > 3 for t in texts):
        return []
    return [i for i, t in enumerate(texts) if _KEY_CELL.match(t)]


# What may follow a password key that ends a table cell: quotes or spaces, then a separator or the line's end.
_CELL_END = re.compile(r"[ \"'`]*(?:[|\t,;\r\n]|$)")
_KEY_WORDS_BY_LENGTH = sorted(set(PASSWORD_KEY_WORDS), key=len, reverse=True)


def _header_starts(text: str) -> list[int]:
    """Starts of the lines where a password key ends a cell (a header naming the column): found with plain
    substring searches, which cost a third of one case-insensitive pattern over the text."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return sorted({text.rfind("\n", 0, m.start()) + 1 for m in re.finditer(PASSWORD_KEYS, text, re.I)})
    starts = set()
    for word in _KEY_WORDS_BY_LENGTH:
        position = lowered.find(word)
        while position >= 0:
            if (position == 0 or not lowered[position - 1].isalnum()) and _CELL_END.match(
                lowered, position + len(word)
            ):
                starts.add(lowered.rfind("\n", 0, position) + 1)
            position = lowered.find(word, position + 1)
    return sorted(starts)


def _line_at(text: str, start: int) -> tuple[int, int]:
    end = text.find("\n", start)
    return start, len(text) if end < 0 else end


def table_passwords(text: str) -> Iterator[tuple[int, int]]:
    """Values in a password column of a table (Markdown or ASCII pipes, CSV, TSV, semicolon-separated), and in
    the cell right of a password label in a key/value row (``| password | value |``)."""
    for offset in _header_starts(text):
        line = text[slice(*_line_at(text, offset))]
        for separator in ("|", "\t", ",", ";"):
            if separator not in line:
                continue
            cells = _cells(line, separator)
            columns = _header_columns(line, cells)
            if not columns:
                continue
            for column in columns:
                if column + 1 < len(cells) and separator in "|\t":
                    yield offset + cells[column + 1][0], offset + cells[column + 1][1]
            row_start = offset + len(line) + 1
            for _ in range(_MAX_ROWS):
                if row_start >= len(text):
                    break
                _, row_end = _line_at(text, row_start)
                row = text[row_start:row_end]
                if not (_TABLE_RULE.match(row) and row.strip()):
                    row_cells = _cells(row, separator)
                    if len(row_cells) != len(cells):
                        break
                    for column in columns:
                        yield row_start + row_cells[column][0], row_start + row_cells[column][1]
                row_start = row_end + 1


_KEY_NAME = r"[\w.\-:]*(?:password|passwd|pwd|passphrase|pass)[\w.\-]*"

STRUCTURED_PASSWORDS: list[Detector] = [
    Detector(
        "password_assignment",
        "credential",
        re.compile(r"."),  # unused: the finder reads the table
        validate=lambda v: " " not in v and labelled_password(v) and unlike_a_word(v),
        keywords=PASSWORD_KEY_WORDS,
        finder=table_passwords,
    ),
    # An XML element named for the password (<password>…</password>, <db:adminPwd>…</db:adminPwd>).
    Detector(
        "password_assignment",
        "credential",
        re.compile(rf"(?i)<(?P<tag>{_KEY_NAME})(?:\s[^<>]{{0,200}})?>(?P<v>[^<>\n]{{4,128}})</(?P=tag)\s*>"),
        validate=labelled_password,
        group="v",
        keywords=("password", "passwd", "pwd", "passphrase", "pass"),
        precheck=re.compile(r"</"),
    ),
    # A name paired with a value: XML and .NET configuration (<add key="DbPassword" value="…"/>), Kubernetes and
    # Compose environment lists (name: DB_PASSWORD / value: …), their JSON forms ({"name": …, "value": …}).
    Detector(
        "password_assignment",
        "credential",
        re.compile(
            rf"(?i)\b(?:key|name|id)[\"']?\s*[:=]\s*[\"']?{_KEY_NAME}[\"']?"
            r"(?:\s*,)?\s{1,12}(?:-\s+)?[\"']?value[\"']?\s*[:=]\s*"
            r"(?:(?P<q>[\"'])(?P<qv>[^\"'\n]{4,128})(?P=q)|(?P<v>[^\s\"',}]{4,128}))"
        ),
        validate=labelled_password,
        group=("qv", "v"),
        keywords=("value",),
        precheck=re.compile(r"(?i)value[\"']?\s*[:=]"),
    ),
    # A login written as a pair after a login word: "login: admin / value", "creds admin/value",
    # "login admin:value".
    Detector(
        "password_in_prose",
        "credential",
        re.compile(
            r"(?i)\b(?:creds?|credentials?|log[ -]?in|logon|sign[ -]?in)\b\s*[:=]?\s*"
            r"(?P<u>[A-Za-z][\w.@\\\-]{0,63})[ \t]*[/:][ \t]*(?P<v>[^\s/]{6,64}?)(?=[.,;)]?(?:\s|$))"
        ),
        validate=lambda v: labelled_password(v) and unlike_a_word(v) and bool(re.search(r"[A-Za-z]", v)),
        group="v",
        keywords=("cred", "login", "log in", "log-in", "logon", "signin", "sign in", "sign-in"),
        at_keywords=True,
    ),
]
