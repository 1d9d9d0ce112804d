"""Temporal channel: episodes from the time a query asks about.

Time expressions in the query ("last Tuesday", "in May 2023", "since March") are
resolved against a reference time into ranges; episodes that happened in a range, or
whose text talks about a time inside it, are candidates. A question that asks *when*
something happened but names no time prefers episodes that carry time information
themselves ("…I went yesterday"). Candidates are ordered by semantic similarity.
"""

from __future__ import annotations

import json
from datetime import datetime

import numpy as np
from django.db.models import Max, Q

from banks.models import Bank
from beliefs.channels import vectors
from beliefs.channels.vectors import bank_is_small
from beliefs.engine.temporal import TimeRange, asks_when, parse_time_ranges
from beliefs.engine.types import Hit, RecallFilters
from beliefs.selectors.episodes import episodes_matching

CHANNEL = "temporal"
# A time range often holds few of a bank's episodes, or none. An index walk in order of meaning would then
# visit thousands of rows of other times before giving up (pgvector's iterative scan stops only at
# its max_scan_tuples setting: 60-90 ms at 100,000 episodes for a range with no episode), while reading the range
# through its B-tree and ranking it exactly costs about 1.3 ms per thousand rows. The walk costs less only
# for ranges holding a large share of the bank: "recently" over 14,400 of 100,000 episodes took 28 ms
# walking (121 of the exact top 128) and 19 ms exactly. Below this many rows, rank exactly.
EXACT_BELOW = 16000


def reference_time(*, bank: Bank, now: datetime | None, as_of: datetime | None) -> datetime | None:
    """What "now" means for relative expressions: the request's ``now``, else the bank's latest episode."""
    if now is not None:
        return now
    return episodes_matching(bank=bank, as_of=as_of).aggregate(latest=Max("occurred_at"))["latest"]


def query_ranges(query_text: str, reference: datetime | None) -> list[TimeRange]:
    return parse_time_ranges(query_text, reference) if reference is not None else []


def _planned_rows(queryset) -> float:
    """The planner's estimate of the rows ``queryset`` matches (from statistics; nothing is read).

    Counting is no cheaper than the search: with a LIMIT the planner reads a time-ordered table from the
    wrong end. Its estimate of a time range from the column statistics is close enough to choose a plan."""
    plan = json.loads(queryset.order_by().explain(format="json"))
    return float(plan[0]["Plan"]["Plan Rows"])


def search(
    *,
    bank: Bank,
    query_text: str,
    query_vector: np.ndarray,
    limit: int,
    ranges: list[TimeRange],
    filters: RecallFilters | None = None,
    as_of: datetime | None = None,
    exact: bool | None = None,
) -> list[Hit]:
    """Up to ``limit`` episodes in the query's time ranges (or time-bearing, for "when" questions).

    ``exact`` as in ``semantic.search`` (default: exact for small banks)."""
    if ranges:
        condition = Q()
        for time_range in ranges:
            condition |= Q(occurred_at__gte=time_range.start, occurred_at__lt=time_range.end)
            # mentions_time is set wherever mentioned_start is: it lets the partial index serve this branch.
            condition |= Q(mentions_time=True, mentioned_start__lt=time_range.end, mentioned_end__gt=time_range.start)
    elif asks_when(query_text):
        condition = Q(mentions_time=True)
    else:
        return []
    in_time = episodes_matching(bank=bank, filters=filters, as_of=as_of).filter(condition)
    if exact is None:
        exact = bank_is_small(bank)
    if not exact:
        exact = _planned_rows(in_time) < EXACT_BELOW
    rows = vectors.nearest_in(in_time, query_vector=query_vector, limit=limit, exact=exact)
    return [Hit(item_id=pk, channel=CHANNEL, rank=rank, score=1.0 - float(d)) for rank, (pk, d) in enumerate(rows, 1)]
