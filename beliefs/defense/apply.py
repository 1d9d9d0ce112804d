"""Apply a bank's Memory Defense policy to what callers write, before anything is stored.

``redact`` replaces every finding with ``[REDACTED:<kind>]``; ``block`` refuses the whole
call with 422 and the kinds found (which items or fields, which kinds — never the value);
``off`` stores text as given. Two entry points, one scan:

- ``items_defend``: retain items — the content, the metadata (its keys as well as every
  string inside it) and the ``thread``. A ``source`` with a finding is replaced whole by
  ``redacted`` (it is an identifier that recall renders, so it keeps the identifier form).
  The item's ``subject`` is an identifier the caller chose for erasure and is kept as is.
- ``values_defend``: any other free text a caller writes (lessons, hence review items and
  plays; review comments; churn play descriptions; mental-model questions; a bank's
  description and background), as one string or any JSON value. The apps below the
  engine reach it through ``memoryhub.text_defense``, where ``BeliefsConfig`` registers it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from banks.models import Bank
from banks.policy import bank_policy
from beliefs.defense.scanner import redact, scan
from memoryhub import metrics
from memoryhub.exceptions import MemoryDefenseBlocked

THREAD_MAX_CHARS = 128  # Episode.thread
REDACTED_SOURCE = "redacted"


def scrub_value(value, counts: Counter, ip_addresses: bool | str):
    """``value`` (text, or any JSON) with every finding redacted; ``counts`` gains the kinds found."""
    if isinstance(value, str):
        findings = scan(value, ip_addresses=ip_addresses)
        counts.update(f.kind for f in findings)
        return redact(value, findings) if findings else value
    if isinstance(value, dict):
        scrubbed = {}
        for key, item in value.items():
            new_key = scrub_value(key, counts, ip_addresses)
            clash = 1
            while new_key in scrubbed:  # two keys redacted to the same text: keep both values
                clash += 1
                new_key = f"{scrub_value(key, Counter(), ip_addresses)}#{clash}"
            scrubbed[new_key] = scrub_value(item, counts, ip_addresses)
        return scrubbed
    if isinstance(value, list):
        return [scrub_value(item, counts, ip_addresses) for item in value]
    return value


def metadata_text(metadata) -> str:
    """Every key and string inside ``metadata`` joined by spaces (what injection markers are looked for in)."""
    if isinstance(metadata, dict):
        return " ".join(f"{metadata_text(k)} {metadata_text(v)}" for k, v in metadata.items())
    if isinstance(metadata, list):
        return " ".join(metadata_text(v) for v in metadata)
    return metadata if isinstance(metadata, str) else ""


def items_defend(*, bank: Bank, items: list) -> tuple[list, dict[str, int]]:
    """The items as they may be stored, and how many findings of each kind were redacted."""
    policy = bank_policy(bank)
    if policy.defense_mode == "off":
        return items, {}
    total: Counter = Counter()
    cleaned, blocked = [], []
    for index, item in enumerate(items):
        counts: Counter = Counter()
        content = scrub_value(item.content, counts, policy.defense_ip_addresses)
        metadata = scrub_value(item.metadata, counts, policy.defense_ip_addresses)
        thread = scrub_value(item.thread, counts, policy.defense_ip_addresses)[:THREAD_MAX_CHARS]
        source_counts: Counter = Counter()
        scrub_value(item.source, source_counts, policy.defense_ip_addresses)
        source = REDACTED_SOURCE if source_counts else item.source
        counts.update(source_counts)
        if counts:
            blocked.append({"item": index, "kinds": sorted(counts)})
        total.update(counts)
        cleaned.append(dataclasses.replace(item, content=content, metadata=metadata, thread=thread, source=source))
    if policy.defense_mode == "block" and blocked:
        metrics.observe_defense("blocked", total)
        raise MemoryDefenseBlocked(extra={"kinds": sorted(total), "items": blocked})
    metrics.observe_defense("redacted", total)
    return cleaned, dict(sorted(total.items()))


def values_defend(*, bank: Bank, value, field: str, policy: dict | None = None):
    """``value`` (a string or any JSON) as it may be stored under the bank's Memory Defense policy.

    ``field`` names what is written, for the 422 of ``block`` (``extra.fields``). ``policy``:
    a policy document to apply instead of the bank's stored one (a change that sets both the
    policy and the text is judged by the new policy).
    """
    mode_of = bank_policy(Bank(policy=policy)) if policy is not None else bank_policy(bank)
    if mode_of.defense_mode == "off":
        return value
    counts: Counter = Counter()
    cleaned = scrub_value(value, counts, mode_of.defense_ip_addresses)
    if counts and mode_of.defense_mode == "block":
        metrics.observe_defense("blocked", counts)
        raise MemoryDefenseBlocked(extra={"kinds": sorted(counts), "fields": [field]})
    metrics.observe_defense("redacted", counts)
    return cleaned
