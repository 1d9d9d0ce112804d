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
from django.db import connection

from banks.models import Bank
from beliefs.channels import vectors
from beliefs.channels.filters import EpisodeScope, episode_scope
from beliefs.channels.vectors import bank_is_small
from beliefs.engine.temporal import TimeRange, asks_when, parse_time_ranges
from beliefs.engine.types import Hit, RecallFilters

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
    sql, params = "SELECT max(e.occurred_at) FROM beliefs_episode e WHERE e.bank_id = %s", [bank.pk]
    if as_of is not None:
        sql, params = sql + " AND e.recorded_at <= %s", [*params, as_of]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def query_ranges(query_text: str, reference: datetime | None) -> list[TimeRange]:
    return parse_time_ranges(query_text, reference) if reference is not None else []


def _planned_rows(scope: EpisodeScope, condition: str, params: list) -> float:
    """The planner's estimate of the rows the condition matches (from statistics; nothing is read).

    Counting is no cheaper than the search: with a LIMIT the planner reads a time-ordered table from the
    wrong end. Its estimate of a time range from the column statistics is close enough to choose a plan."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"EXPLAIN (FORMAT JSON) SELECT 1 FROM beliefs_episode e WHERE {scope.sql} AND ({condition})",
            [*scope.params, *params],
        )
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return float(plan[0]["Plan"]["Plan Rows"])


def time_condition(query_text: str, ranges: list[TimeRange]) -> tuple[str, list] | None:
    """The SQL condition for episodes in the query's time: in one of ``ranges`` (by when they happened or the time
    they talk about), or, for a "when" question naming no time, any episode that carries time; ``None`` when the
    query has nothing to do with time."""
    if ranges:
        # mentions_time is set wherever mentioned_start is: it lets the partial index serve the second branch.
        clause = (
            "(e.occurred_at >= %s AND e.occurred_at < %s)"
            " OR (e.mentions_time AND e.mentioned_start < %s AND e.mentioned_end > %s)"
        )
        return " OR ".join([clause] * len(ranges)), [v for r in ranges for v in (r.start, r.end, r.end, r.start)]
    if asks_when(query_text):
        return "e.mentions_time", []
    return None


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
    scope: EpisodeScope | None = None,
    vector: str | None = None,
) -> list[Hit]:
    """Up to ``limit`` episodes in the query's time ranges (or time-bearing, for "when" questions).

    ``exact``, ``scope`` and ``vector`` as in ``semantic.search`` (default: exact for small banks)."""
    condition = time_condition(query_text, ranges)
    if condition is None:
        return []
    scope = scope or episode_scope(bank, filters, as_of)
    if exact is None:
        exact = bank_is_small(bank)
    if not exact:
        exact = _planned_rows(scope, *condition) < EXACT_BELOW
    rows = vectors.nearest_in(
        scope, *condition, vector=vector or vectors.query_text(query_vector), limit=limit, exact=exact
    )
    return [Hit(item_id=pk, channel=CHANNEL, rank=rank, score=1.0 - float(d)) for rank, (pk, d) in enumerate(rows, 1)]
