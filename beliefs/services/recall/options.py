"""What a caller can ask of recall besides the query and the budget."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

CHANNELS = ("semantic", "keyword", "graph", "temporal")
KINDS = ("episode", "belief", "fact", "play")
# Typical items cost 20-40 tokens: each channel contributes enough candidates to fill the budget.
_TOKENS_PER_CANDIDATE = 8
_MAX_CANDIDATES = 500


@dataclass(frozen=True)
class RecallOptions:
    """``channels``: which ranked lists are fused (``recent`` is an extra one); ``kinds``: episodes, beliefs, facts,
    plays; ``rerank``: off packs the fused order as is; ``now``: what relative times ("last week") count from
    (default: the bank's latest episode)."""

    channels: tuple[str, ...] = CHANNELS
    kinds: tuple[str, ...] = KINDS
    rerank: bool = True
    now: datetime | None = None

    def __post_init__(self):
        # Callers pass lists (request data): keep the value hashable and immutable.
        object.__setattr__(self, "channels", tuple(self.channels))
        object.__setattr__(self, "kinds", tuple(self.kinds))


def candidates_per_channel(budget_tokens: int) -> int:
    """How deep each channel ranks: at least the configured floor, deeper for large budgets."""
    floor = settings.MEMORYHUB["RECALL_CANDIDATES_PER_CHANNEL"]
    return max(floor, min(_MAX_CANDIDATES, budget_tokens // _TOKENS_PER_CANDIDATE))
