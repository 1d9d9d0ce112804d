"""Keyword channel: PostgreSQL full-text search ranked with BM25.

Web-search operators work as filters: a "quoted phrase" must appear and a -word must not.
The query is turned into lexemes by the same ``english`` configuration that built the
episodes' search vectors. Each lexeme gets an inverse document frequency from the
bank's term statistics, so a rare identifier outweighs a word half the bank contains.
Candidates come from the GIN index (episodes containing any of the rarer lexemes), and
are scored with BM25 (k1=1.2, b=0.75) over the lexemes' term frequencies. Query text
never reaches a tsquery parser as syntax: only lexemes PostgreSQL itself produced do.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from banks.models import Bank
from beliefs.channels.filters import EpisodeScope, episode_scope
from beliefs.engine.types import Hit, RecallFilters
from beliefs.models.episodes import SEARCH_CONFIG
from memoryhub.tenancy import request_role

CHANNEL = "keyword"
K1 = 1.2
B = 0.75
_SAFE_LEXEME = re.compile(r"^[\w.\-/:@+]{1,200}$")
# Bound on the episodes the selecting lexemes may match (sum of their document counts), and on
# the candidates BM25 scores, so a query of common words stays cheap on big banks.
_CANDIDATE_BUDGET = 1000
_MAX_SCORED = 1500
# Bound on the ids the index match hands back before the recall filters apply.
_INDEX_MATCHES = 2 * _MAX_SCORED


@dataclass(frozen=True)
class QueryTerms:
    """The query's lexemes with their idf, and the bank statistics BM25 needs."""

    idf: dict[str, float]
    selective: tuple[str, ...]
    avg_length: float
    # Whether the session reading them is the request role (row-level security filters it), read with them.
    row_security: bool | None = None

    @property
    def empty(self) -> bool:
        return not self.idf


def query_terms(*, bank: Bank, text: str) -> QueryTerms:
    """Lexemes of ``text`` that occur in ``bank``, weighted by rarity."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT l.lexeme, t.doc_count, s.doc_count, s.lexeme_total, current_user = %s
            FROM unnest(tsvector_to_array(to_tsvector(%s::regconfig, %s))) AS l(lexeme)
            JOIN beliefs_bankterm t ON t.bank_id = %s AND t.lexeme = l.lexeme AND t.doc_count > 0
            JOIN beliefs_banktextstats s ON s.bank_id = %s
            """,
            [request_role(), SEARCH_CONFIG, text, bank.pk, bank.pk],
        )
        rows = [row for row in cursor.fetchall() if _SAFE_LEXEME.match(row[0])]
    if not rows:
        return QueryTerms(idf={}, selective=(), avg_length=1.0)
    documents, total_length = rows[0][2], rows[0][3]
    idf = {lexeme: math.log(1 + (documents - df + 0.5) / (df + 0.5)) for lexeme, df, *_ in rows}
    return QueryTerms(
        idf=idf,
        selective=_selective(rows),
        avg_length=max(1.0, total_length / documents),
        row_security=bool(rows[0][4]),
    )


def _selective(rows) -> tuple[str, ...]:
    """Lexemes that pick candidates: rarest first, as many as the GIN scan can afford (their
    document counts add up to at most ``_CANDIDATE_BUDGET``; in a small bank, all of them).
    The rarest lexeme always selects, so a query never goes without candidates. Lexemes left
    out still score the candidates."""
    chosen, total = [], 0
    for lexeme, df, *_ in sorted(rows, key=lambda row: (row[1], row[0])):
        if chosen and total + df > _CANDIDATE_BUDGET:
            break
        chosen.append(lexeme)
        total += df
    return tuple(sorted(chosen))


_QUOTED = re.compile(r'"[^"]+"')
_EXCLUDED = re.compile(r"(?:^|\s)-([^\W_][\w-]*)")


def websearch_constraints(text: str) -> str:
    """The web-search operators of ``text`` as a filter: "quoted phrases" must appear, -words must not.

    Everything else in the query only ranks. PostgreSQL's ``websearch_to_tsquery`` parses the
    result and never raises on malformed input.
    """
    phrases = _QUOTED.findall(text)
    excluded = [f"-{word}" for word in _EXCLUDED.findall(_QUOTED.sub(" ", text))]
    return " ".join(phrases + excluded)


def _bm25(candidates_sql: str, candidate_params: list, terms: QueryTerms, limit: int) -> list[tuple[int, float]]:
    # Each candidate's vector is cut down to the query's lexemes (with their positions) before it is
    # unnested: setweight marks them, ts_filter keeps them. Unnesting whole vectors made a row per
    # lexeme of every candidate, about ten times the rows the score needs.
    lexemes = sorted(terms.idf)
    sql = f"""
        WITH q(lexeme, idf) AS (SELECT * FROM unnest(%s::text[], %s::float8[])),
             cand AS ({candidates_sql})
        SELECT cand.id,
               SUM(q.idf * (array_length(u.positions, 1) * {K1 + 1})
                   / (array_length(u.positions, 1)
                      + {K1} * (1 - {B} + {B} * length(cand.search_vector)::float8 / %s))) AS score
        FROM cand
        CROSS JOIN LATERAL unnest(ts_filter(setweight(setweight(cand.search_vector, 'D'), 'A', %s::text[]), '{{a}}'))
            AS u(lexeme, positions, weights)
        JOIN q ON q.lexeme = u.lexeme
        GROUP BY cand.id
        ORDER BY score DESC, cand.id
        LIMIT %s
    """
    params = [lexemes, [terms.idf[lexeme] for lexeme in lexemes], *candidate_params, terms.avg_length, lexemes, limit]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [(pk, float(score)) for pk, score in cursor.fetchall()]


def search(
    *,
    bank: Bank,
    query_text: str,
    limit: int,
    filters: RecallFilters | None = None,
    as_of: datetime | None = None,
    terms: QueryTerms | None = None,
    scope: EpisodeScope | None = None,
) -> list[Hit]:
    """Up to ``limit`` episodes sharing words with ``query_text``, best BM25 score first."""
    terms = terms or query_terms(bank=bank, text=query_text)
    if terms.empty:
        return []
    scope = scope or episode_scope(bank, filters, as_of)
    constraints = websearch_constraints(query_text)
    row_security = terms.row_security if terms.row_security is not None else _row_security_applies()
    rows = _bm25_over_matches(scope, constraints, terms, limit, row_security=row_security)
    return [Hit(item_id=pk, channel=CHANNEL, rank=rank, score=score) for rank, (pk, score) in enumerate(rows, 1)]


def _bm25_over_matches(
    scope: EpisodeScope, constraints: str, terms: QueryTerms, limit: int, *, row_security: bool
) -> list[tuple[int, float]]:
    # The selecting lexemes reach about _CANDIDATE_BUDGET episodes, and every match is scored. When
    # even the rarest word is everywhere, an unordered slice keeps the heap scan short.
    lexemes = _tsquery_text(terms.selective)
    if row_security and not (constraints or scope.narrowed):
        # Nothing left to filter: the index match hands back the rows BM25 scores, one heap visit each.
        return _bm25(_CANDIDATES_SQL, [scope.bank_id, lexemes, _MAX_SCORED], terms, limit)
    where, params = scope.sql, list(scope.params)
    if constraints:
        where += " AND e.search_vector @@ websearch_to_tsquery(%s::regconfig, %s)"
        params += [SEARCH_CONFIG, constraints]
    if row_security:
        # The ids stay inside PostgreSQL: shipping up to _INDEX_MATCHES ids to Python and back as an IN list
        # cost more than scoring them.
        where += " AND e.id IN (SELECT public.memoryhub_keyword_matches(%s, to_tsquery('simple'::regconfig, %s), %s))"
        params += [scope.bank_id, lexemes, _INDEX_MATCHES]
    else:
        where += " AND e.search_vector @@ to_tsquery('simple'::regconfig, %s)"
        params.append(lexemes)
    candidates = f"SELECT e.id, e.search_vector FROM beliefs_episode e WHERE {where} LIMIT %s"
    return _bm25(candidates, [*params, _MAX_SCORED], terms, limit)


def _row_security_applies() -> bool:
    """Whether this session is the request role (row-level security filters it) rather than the maintenance role."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user = %s", [request_role()])
        return bool(cursor.fetchone()[0])


# Row-level security keeps PostgreSQL from using the GIN index for ``@@`` (not a leakproof operator), so the
# request role's index match runs in functions that check the caller's tenant themselves (migrations 0018, 0020).
_CANDIDATES_SQL = (
    "SELECT id, search_vector FROM public.memoryhub_keyword_candidates(%s, to_tsquery('simple'::regconfig, %s), %s)"
)


def _tsquery_text(lexemes) -> str:
    return " | ".join(f"'{lexeme}'" for lexeme in lexemes)


def scores_for(*, bank: Bank, terms: QueryTerms, episode_ids: list[int]) -> dict[int, float]:
    """BM25 scores of given episodes (0 when they share no lexeme with the query)."""
    if terms.empty or not episode_ids:
        return {}
    candidates = "SELECT id, search_vector FROM beliefs_episode WHERE bank_id = %s AND id = ANY(%s)"
    return dict(_bm25(candidates, [bank.pk, list(episode_ids)], terms, len(episode_ids)))
