"""Frozen values that flow through the recall engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Hit:
    """One item a channel found, at 1-based ``rank`` in that channel's list."""

    item_id: int
    channel: str
    rank: int
    score: float


@dataclass(frozen=True)
class FusedCandidate:
    """An item after fusion: its fused score and what each channel said about it."""

    item_id: int
    score: float
    channels: tuple[str, ...]
    channel_ranks: dict[str, int] = field(default_factory=dict, compare=False)
    channel_scores: dict[str, float] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class PackedItem:
    """An item placed in the recall response."""

    item_id: int
    kind: str
    text: str
    tokens: int
    score: float
    channels: tuple[str, ...]
    occurred_at: datetime
    recorded_at: datetime
    source: str
    subject: str
    provenance: str
    metadata: dict
    channel_ranks: dict[str, int] = field(default_factory=dict, compare=False)
    channel_scores: dict[str, float] = field(default_factory=dict, compare=False)
    features: dict[str, float] = field(default_factory=dict, compare=False)
    duplicates: tuple[int, ...] = ()
    trimmed: bool = False
    # Beliefs and facts: the episodes they stand for (supporting evidence, or the source episode).
    episode_ids: tuple[int, ...] = ()
    # Why the text looks like it tries to instruct the reader (prompt-injection markers), if it does.
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class RecallResult:
    """What ``recall`` returns: items in rank order and what they cost."""

    items: tuple[PackedItem, ...]
    budget_tokens: int
    tokens_used: int
    candidates: int
    dropped_by_budget: int
    channel_counts: dict[str, int]
    elapsed_ms: float
    query_tokens: int
    trimmed: int = 0
    reference_time: datetime | None = None
    time_ranges: tuple[tuple[datetime, datetime, str], ...] = ()
    channel_ms: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class RecallFilters:
    """Narrow recall to some sources, subjects or an ``occurred_at`` window (inclusive)."""

    sources: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    occurred_after: datetime | None = None
    occurred_before: datetime | None = None
