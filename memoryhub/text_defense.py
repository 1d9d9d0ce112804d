"""Memory Defense for free text that the apps below the memory engine store.

The detectors and the bank policy's redact/block rules live in the engine
(``beliefs.defense.apply.values_defend``), a layer above ``banks`` and ``reviews``, whose
services also store text a caller wrote (a bank's description and background, review
comments). The engine registers its entry point here at start-up (``BeliefsConfig.ready``)
and those services call ``text_defend``: the same scan and the same redaction or 422 as
retain. With nothing registered ``text_defend`` raises rather than store text unscanned.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ImproperlyConfigured

_defender: Callable[..., object] | None = None


def register_text_defense(defender: Callable[..., object]) -> None:
    """Install ``defender(bank=, value=, field=, policy=)`` as the scan every ``text_defend`` call runs."""
    global _defender
    _defender = defender


def text_defend(*, bank, value, field: str, policy: dict | None = None):
    """``value`` (a string or any JSON) as the bank's Memory Defense policy lets it be stored; 422 in block mode."""
    if _defender is None:
        raise ImproperlyConfigured("Memory Defense is not registered: the beliefs app must be installed.")
    return _defender(bank=bank, value=value, field=field, policy=policy)
