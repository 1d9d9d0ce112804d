"""The recall filters as one SQL condition over ``beliefs_episode``, built once per recall.

Channels read through raw SQL: compiling an ORM queryset cost about a millisecond of
Python per query, and recall makes a dozen. ``EpisodeScope`` holds the condition every
channel adds to its own ``WHERE`` (the same rows ``selectors.episodes.episodes_matching``
returns); row-level security still applies underneath.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from banks.models import Bank
from beliefs.engine.types import RecallFilters


@dataclass(frozen=True)
class EpisodeScope:
    """``sql`` (a condition on table alias ``e``) and its ``params``; ``narrowed`` when anything beyond the bank
    limits it."""

    bank_id: int
    sql: str
    params: tuple
    narrowed: bool

    def where(self, alias: str = "e") -> str:
        return self.sql.replace("e.", f"{alias}.") if alias != "e" else self.sql


def episode_scope(bank: Bank, filters: RecallFilters | None = None, as_of: datetime | None = None) -> EpisodeScope:
    """The condition for ``bank``'s episodes that pass ``filters`` as the bank knew them at ``as_of``."""
    clauses, params = ["e.bank_id = %s"], [bank.pk]
    if filters is not None:
        if filters.sources:
            clauses.append("e.source = ANY(%s)")
            params.append(list(filters.sources))
        if filters.subjects:
            clauses.append("e.subject = ANY(%s)")
            params.append(list(filters.subjects))
        if filters.occurred_after is not None:
            clauses.append("e.occurred_at >= %s")
            params.append(filters.occurred_after)
        if filters.occurred_before is not None:
            clauses.append("e.occurred_at <= %s")
            params.append(filters.occurred_before)
    if as_of is not None:
        clauses.append("e.recorded_at <= %s")
        params.append(as_of)
    return EpisodeScope(bank_id=bank.pk, sql=" AND ".join(clauses), params=tuple(params), narrowed=len(clauses) > 1)


def id_array(ids) -> str:
    """Ids as one ``bigint[]`` literal parameter (``%s::bigint[]``): a Python list is adapted element by element,
    which for a few hundred ids cost more than the query."""
    return "{" + ",".join(map(str, ids)) + "}"
