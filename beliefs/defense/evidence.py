"""What a stored text may support: the second line of Memory Defense, whatever the detectors missed.

A fact becomes evidence for a belief — and through beliefs for mental-model answers, suppressions and
the plays lessons cite — only when its episode's provenance tier allows it (``BankPolicy.trust``):

- text with prompt-injection markers (or a recall echo) supports nothing until an admin releases it;
- ``recall_only``: nothing from that provenance supports anything;
- ``standard`` (the default for every provenance): an instruction about what the memory should hold or
  do from now on (``directives`` level ``memory``) makes the whole episode support nothing — what follows
  "remember that …" is the instruction's payload, not an observation —; an order or a rule (level
  ``order``) holds back the facts whose quote overlaps it;
- ``trusted``: instruction-shaped text is evidence like any other.

A held-back fact stays stored and its episode stays recallable (fenced, as untrusted text); the belief
page lists what was held back and why.
"""

from __future__ import annotations

from collections.abc import Iterable

from banks.policy import BankPolicy
from beliefs.defense.apply import metadata_text
from beliefs.defense.directives import MEMORY, directive_findings

INJECTION = "injection_markers"
INSTRUCTION = "instruction"
RECALL_ONLY = "recall_only"
HOLD_LABELS = {
    INJECTION: "prompt-injection markers (until an admin releases the episode)",
    INSTRUCTION: "an instruction from a source this bank does not trust with instructions",
    RECALL_ONLY: "a provenance this bank keeps for recall only",
}


def instruction_spans(content: str, metadata) -> tuple[bool, list[tuple[int, int]]]:
    """(whether the episode holds a memory-level instruction anywhere, the content spans of orders and rules)."""
    in_content = directive_findings(content)
    memory = any(d.level == MEMORY for d in in_content)
    if not memory:
        memory = any(d.level == MEMORY for d in directive_findings(metadata_text(metadata)))
    return memory, [(d.start, d.end) for d in in_content if d.level != MEMORY]


def fact_holds(
    *,
    policy: BankPolicy,
    provenance: str,
    content: str,
    metadata,
    injection_flags: list | None,
    released: bool,
    quotes: Iterable[tuple[int, int]],
) -> list[str | None]:
    """For each quote span of one episode's facts: why it may not be evidence (``None`` when it may)."""
    quotes = list(quotes)
    if released:
        return [None] * len(quotes)
    if injection_flags:
        return [INJECTION] * len(quotes)
    tier = policy.trust_tier(provenance)
    if tier == "recall_only":
        return [RECALL_ONLY] * len(quotes)
    if tier == "trusted":
        return [None] * len(quotes)
    memory, orders = instruction_spans(content, metadata)
    if memory:
        return [INSTRUCTION] * len(quotes)
    return [INSTRUCTION if any(s < end and start < e for s, e in orders) else None for start, end in quotes]


def episode_hold(*, policy: BankPolicy, episode) -> str | None:
    """Why a whole episode may not be cited (by a lesson), or ``None``: here any instruction-shaped clause counts."""
    if episode.quarantine_released_at is not None:
        return None
    if episode.injection_flags:
        return INJECTION
    tier = policy.trust_tier(episode.provenance)
    if tier == "recall_only":
        return RECALL_ONLY
    if tier == "trusted":
        return None
    if directive_findings(episode.content) or directive_findings(metadata_text(episode.metadata)):
        return INSTRUCTION
    return None
