"""Every kind Memory Defense recognises, in one registry (see ``credentials``, ``personal`` and ``labelled``).

A kind's ``category`` says how it is treated: ``credential`` and ``private_key`` are secrets,
``pii`` is personal data, ``network`` (IP addresses) follows the bank's ``ip_addresses`` policy.
"""

from __future__ import annotations

from beliefs.defense.base import Detector
from beliefs.defense.credentials import CONTEXT_KEYS, PASSWORDS, PROVIDER_TOKENS
from beliefs.defense.labelled import LABELLED
from beliefs.defense.personal import PERSONAL

__all__ = ["CATEGORY", "DETECTORS", "KINDS", "NETWORK_KINDS", "Detector"]

DETECTORS: list[Detector] = [*PROVIDER_TOKENS, *CONTEXT_KEYS, *PASSWORDS, *PERSONAL, *LABELLED]
KINDS = tuple(dict.fromkeys(d.kind for d in DETECTORS))
CATEGORY = {d.kind: d.category for d in DETECTORS}
NETWORK_KINDS = frozenset(d.kind for d in DETECTORS if d.category == "network")
