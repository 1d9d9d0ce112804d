"""Tombstones: keyed hashes of erased subjects, so a later retain or import cannot bring them back.

A subject is compared in its folded form (``subject_folded``): Unicode compatibility
forms (NFKC), case folding, invisible format characters dropped and whitespace runs
collapsed, so ``alice``, ``Alice``, `` ALICE`` and ``ａｌｉｃｅ`` are one subject. The
erasure itself (``forget.subjects.erasure_request_run``) finds the subject's episodes the same way.

The hash is an HMAC-SHA256 of the tenant and the folded subject under the tombstone key:
a random key kept in ``memoryhub_private.tombstone_key``, which only the maintenance role
reads. The database computes the HMAC (``memoryhub_tombstone_hashes()``, SECURITY
DEFINER), so the key never leaves it, the table never holds the subject, and a stolen
copy of the tombstones cannot be checked against a list of guesses without the key.
The key is independent of ``SECRET_KEY``: rotating that leaves every tombstone in force.

The tombstone key itself can be rotated (``manage.py tombstone_key_rotate``): new
tombstones use the newest key and matching tries every key, so older tombstones stay in
force. Tombstones written before the key existed were keyed on ``SECRET_KEY``; they are
still matched while ``SECRET_KEY`` is unchanged.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
from collections import defaultdict

from django.conf import settings
from django.db import connection
from django.db.models import Q

from banks.models import Bank
from beliefs.models import Tombstone
from memoryhub.tenancy import maintenance_session


def subject_folded(subject: str) -> str:
    """``subject`` as erasure compares it: NFKC, case-folded, no format characters, single-spaced, trimmed."""
    text = unicodedata.normalize("NFKC", subject or "")
    text = "".join(char for char in text if unicodedata.category(char) != "Cf")
    text = unicodedata.normalize("NFKC", text.casefold())
    return " ".join(text.split())


def _message(tenant_id: int, subject: str) -> str:
    return f"memoryhub-tombstone:{int(tenant_id)}\x1f{subject_folded(subject)}"


def _legacy_hash(tenant_id: int, subject: str) -> str:
    """The hash tombstones had before the tombstone key: keyed on ``SECRET_KEY``, trimmed and lower-cased."""
    message = f"{tenant_id}\x1f{subject.strip().lower()}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()


def _hashes(messages: list[str]) -> list[tuple[str, str, bool]]:
    """``(message, hash, under the newest key)`` for every message and every tombstone key."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT message, subject_hash, newest FROM public.memoryhub_tombstone_hashes(%s)", [messages])
        return cursor.fetchall()


def subject_hash(*, tenant_id: int, subject: str) -> str:
    """The hash a new tombstone of ``subject`` in ``tenant_id`` carries (under the newest tombstone key)."""
    return next(h for _, h, newest in _hashes([_message(tenant_id, subject)]) if newest)


def subject_hashes(*, tenant_id: int, subjects: list[str]) -> list[str]:
    """The new-tombstone hash of each of ``subjects`` (folded duplicates give one hash), in order of first spelling."""
    messages = list(dict.fromkeys(_message(tenant_id, s) for s in subjects))
    newest = {message: h for message, h, is_newest in _hashes(messages) if is_newest}
    return [newest[message] for message in messages]


def erased_subjects(*, bank: Bank, subjects: set[str]) -> set[str]:
    """Which of ``subjects`` (every spelling given) were erased in ``bank`` or across its tenant."""
    subjects = {s for s in subjects if subject_folded(s)}
    if not subjects:
        return set()
    spellings: dict[str, set[str]] = defaultdict(set)  # folded message -> every spelling that folds to it
    for subject in subjects:
        spellings[_message(bank.tenant_id, subject)].add(subject)
    candidates: dict[str, set[str]] = defaultdict(set)  # hash -> spellings it stands for
    for message, digest, _ in _hashes(list(spellings)):
        candidates[digest] |= spellings[message]
    for subject in subjects:
        candidates[_legacy_hash(bank.tenant_id, subject)].add(subject)
    found = Tombstone.objects.filter(
        Q(bank=bank) | Q(bank__isnull=True), tenant_id=bank.tenant_id, subject_hash__in=list(candidates)
    ).values_list("subject_hash", flat=True)
    return set().union(*(candidates[digest] for digest in found))


def tombstone_key_rotate() -> int:
    """Add a new random tombstone key; new tombstones use it, older ones stay matched. Returns its id."""
    padded = secrets.token_bytes(32).ljust(hashlib.sha256().block_size, b"\0")
    inner, outer = bytes(b ^ 0x36 for b in padded), bytes(b ^ 0x5C for b in padded)
    with maintenance_session() as conn:
        row = conn.execute(
            "INSERT INTO memoryhub_private.tombstone_key (inner_pad, outer_pad) VALUES (%s, %s) RETURNING id",
            [inner, outer],
        ).fetchone()
    return row[0]
