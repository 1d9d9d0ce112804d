"""Keyword channel: PostgreSQL full-text search over episode content.

The query is reduced to its words and OR-ed, so a natural-language question matches
episodes that share any of its (stemmed, non-stop) words, ranked by how many and how
densely. Only word characters reach ``to_tsquery``, so tsquery syntax in a query is
treated as plain text and can never raise a syntax error.
"""

from __future__ import annotations

import re
from datetime import datetime

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db.models import F, Value

from banks.models import Bank
from beliefs.engine.types import Hit, RecallFilters
from beliefs.models.episodes import SEARCH_CONFIG
from beliefs.selectors.episodes import episodes_matching

CHANNEL = "keyword"
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_MAX_TERMS = 64
# ts_rank normalisation 1: divide by 1 + log(document length), so long items do not win by size.
_LENGTH_NORMALISATION = 1


def query_terms(text: str) -> list[str]:
    """Distinct lower-cased words of ``text``, in order, at most 64."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if len(word) <= 64:
            seen.setdefault(word, None)
        if len(seen) >= _MAX_TERMS:
            break
    return list(seen)


def search(
    *, bank: Bank, query_text: str, limit: int, filters: RecallFilters | None = None, as_of: datetime | None = None
) -> list[Hit]:
    """Up to ``limit`` episodes matching any word of ``query_text``, best first."""
    terms = query_terms(query_text)
    if not terms:
        return []
    tsquery = SearchQuery(" | ".join(terms), search_type="raw", config=SEARCH_CONFIG)
    rows = (
        episodes_matching(bank=bank, filters=filters, as_of=as_of)
        .filter(search_vector=tsquery)
        .annotate(rank=SearchRank(F("search_vector"), tsquery, normalization=Value(_LENGTH_NORMALISATION)))
        .order_by("-rank", "id")
        .values_list("id", "rank")[:limit]
    )
    return [Hit(item_id=pk, channel=CHANNEL, rank=rank, score=float(score)) for rank, (pk, score) in enumerate(rows, 1)]
