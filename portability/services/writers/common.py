"""What every record writer shares: the import's context, natural-key lookups and checked enum values."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from banks.models import Bank
from beliefs.models import Belief, BeliefVersion, Episode, Evidence, Fact, Provenance
from beliefs.models.facts import Extractor
from portability.records import Record
from reviews.models import ReviewItem

_CHOICES = {
    "provenance": set(Provenance.values),
    "stance": set(Evidence.Stance.values),
    "status": set(Belief.Status.values),
    "new_status": set(Belief.Status.values),
    "old_status": set(Belief.Status.values) | {""},
    "cause": set(BeliefVersion.Cause.values),
    "extractor": set(Extractor.values),
    "kind": set(ReviewItem.Kind.values),
    "review_status": set(ReviewItem.Status.values),
}
#: Episode keys an untrusted file may not claim as they are (see ``imported_ref``).
UNTRUSTED_REF_PREFIX = "import:"


class Unresolved(Exception):
    """A record that cannot be written: a reference outside the bank or a value outside its field's choices."""

    def __init__(self, line: int, reason: str, field: str | None = None):
        super().__init__(reason)
        self.line, self.reason, self.field = line, reason, field


@dataclass
class Context:
    """One batch's writing context.

    ``trusted`` is the admin's explicit ``trust_file``: derived records and review decisions are then
    taken from the file. ``held_back`` counts records not written as they are; ``trusted_records`` counts
    records written as the file states them only because the file is trusted.
    """

    bank: Bank
    now: datetime
    trusted: bool = False
    held_back: Counter = field(default_factory=Counter)
    trusted_records: Counter = field(default_factory=Counter)

    def episode_ids(self, refs: set[str]) -> dict[str, int]:
        """Episode ids by the key a file names them with (in an untrusted file, also by the key it was stored under)."""
        refs = {ref for ref in refs if isinstance(ref, str)}
        if not refs:
            return {}
        lookup = {ref: ref for ref in refs}
        if not self.trusted:
            lookup.update({imported_ref(ref): ref for ref in refs})
        rows = Episode.objects.filter(bank=self.bank, dedupe_key__in=set(lookup)).values_list("dedupe_key", "id")
        found: dict[str, int] = {}
        for key, pk in sorted(rows, key=lambda row: row[0].startswith(UNTRUSTED_REF_PREFIX)):
            found.setdefault(lookup[key], pk)  # the key as written wins over its untrusted namespace
        return found

    def belief_ids(self, keys: set[str]) -> dict[str, int]:
        keys = {key for key in keys if isinstance(key, str)}
        if not keys:
            return {}
        return dict(Belief.objects.filter(bank=self.bank, key__in=keys).values_list("key", "id"))

    def fact_ids(self, episode_ids: set[int]) -> dict[tuple, int]:
        rows = Fact.objects.filter(bank=self.bank, episode_id__in=episode_ids).values_list(
            "id", "episode_id", "subject_key", "predicate", "object_key", "negated"
        )
        return {tuple(row[1:]): row[0] for row in rows}


def imported_ref(ref: str) -> str:
    """The key an untrusted file's episode is stored under when its own key cannot be verified.

    Retain never makes keys in this namespace, so a file cannot take a key that a later retain
    of other text would compute (which would make that retain a silent duplicate).
    """
    return UNTRUSTED_REF_PREFIX + hashlib.sha256(ref.encode()).hexdigest()


def choice(record: Record, name: str, default: str | None = None, *, field_name: str | None = None) -> str:
    """The record's value for an enum field, which must be one of the field's known values."""
    field_name = field_name or name
    value = record.data.get(field_name)
    value = default if value is None else value
    if not isinstance(value, str) or value not in _CHOICES[name]:
        raise Unresolved(
            record.line, f"{record.type}.{field_name} {str(value)[:40]!r} is not one of the known values", field_name
        )
    return value


def need(mapping: dict, key, record: Record, what: str, field: str):
    try:
        found = key in mapping
    except TypeError:  # an unhashable value where a key belongs
        found = False
    if not found:
        raise Unresolved(record.line, f"{what} {str(key)[:80]!r} is not in this bank (nor earlier in the file)", field)
    return mapping[key]


def text(record: Record, name: str, *, limit: int, default: str = "") -> str:
    """An optional string field (``default`` when absent), refused when it is not a string or too long."""
    value = record.data.get(name)
    if value is None:
        return default
    if not isinstance(value, str):
        raise Unresolved(record.line, f"{record.type}.{name} must be a string", name)
    if len(value) > limit:
        raise Unresolved(record.line, f"{record.type}.{name} is longer than {limit} characters", name)
    return value


def not_after(value: datetime | None, now: datetime) -> datetime:
    """A time from an untrusted file, clamped so it never claims to be later than ``now``."""
    return now if value is None or value > now else value


def insert_new(model, *, bank: Bank, rows: list, kind: str, total: int) -> tuple[Counter, int]:
    """Insert ``rows`` of ``model``, skipping those a unique constraint says the bank holds already.

    Returns ``Counter({kind: inserted})`` and how many of the ``total`` records were not inserted.
    """
    before = model.objects.filter(bank=bank).count()
    model.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
    new = model.objects.filter(bank=bank).count() - before
    return Counter({kind: new}), total - new
