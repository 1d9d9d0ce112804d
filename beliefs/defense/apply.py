"""Apply a bank's Memory Defense policy to items before anything is written.

``redact`` replaces every finding with ``[REDACTED:<kind>]`` in the content and in every
string inside the metadata; ``block`` refuses the whole call with 422 and the kinds
found (which items, which kinds — never the value); ``off`` stores text as given. The
item's ``subject`` is an identifier the caller chose for erasure and is kept as is.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from banks.models import Bank
from banks.policy import bank_policy
from beliefs.defense.scanner import redact, scan
from memoryhub import metrics
from memoryhub.exceptions import MemoryDefenseBlocked


def scrub_value(value, counts: Counter, ip_addresses: bool | str):
    """``value`` (text, or any JSON) with every finding redacted; ``counts`` gains the kinds found."""
    if isinstance(value, str):
        findings = scan(value, ip_addresses=ip_addresses)
        counts.update(f.kind for f in findings)
        return redact(value, findings) if findings else value
    if isinstance(value, dict):
        return {key: scrub_value(item, counts, ip_addresses) for key, item in value.items()}
    if isinstance(value, list):
        return [scrub_value(item, counts, ip_addresses) for item in value]
    return value


def metadata_text(metadata) -> str:
    """Every string inside ``metadata`` joined by spaces (what injection markers are looked for in)."""
    if isinstance(metadata, dict):
        return " ".join(metadata_text(v) for v in metadata.values())
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
        if counts:
            blocked.append({"item": index, "kinds": sorted(counts)})
        total.update(counts)
        cleaned.append(dataclasses.replace(item, content=content, metadata=metadata))
    if policy.defense_mode == "block" and blocked:
        metrics.observe_defense("blocked", total)
        raise MemoryDefenseBlocked(extra={"kinds": sorted(total), "items": blocked})
    metrics.observe_defense("redacted", total)
    return cleaned, dict(sorted(total.items()))
