"""One read of everything ranking and packing need about the fused candidates.

For the pool's episodes (and, when asked, their thread neighbours that pass the recall
filters) a single query returns text, token count, embedding, citation fields, the
previous and next episode of the thread and the BM25 score of the query's terms. It was
four reads (neighbours, texts with vectors, BM25 scores, citations of what was packed),
each a round trip and a compiled query. Columns come back as arrays in pool order, so
the engine works on them without an object per candidate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import psycopg
from django.db import connection

from beliefs.channels.filters import EpisodeScope, id_array
from beliefs.channels.keyword import K1, B, QueryTerms
from memoryhub.tenancy import request_role

# Episodes are looked up by primary key (``= ANY`` of an array): a join with the unnested ids or an ``IN`` over the
# neighbour union was planned as a scan of the whole bank, most of the read's time at 10,000 episodes.
_THREAD_NEIGHBOURS = """
    nb AS MATERIALIZED (
        -- An episode without a thread has no neighbours: the condition inside each lookup skips its index walk.
        SELECT e.id, pv.id AS prev, nx.id AS next
        FROM beliefs_episode e
        LEFT JOIN LATERAL (
            SELECT x.id FROM beliefs_episode x
            WHERE e.thread <> '' AND x.bank_id = e.bank_id AND x.thread = e.thread
              AND (x.occurred_at, x.id) < (e.occurred_at, e.id)
            ORDER BY x.occurred_at DESC, x.id DESC LIMIT 1
        ) pv ON true
        LEFT JOIN LATERAL (
            SELECT x.id FROM beliefs_episode x
            WHERE e.thread <> '' AND x.bank_id = e.bank_id AND x.thread = e.thread
              AND (x.occurred_at, x.id) > (e.occurred_at, e.id)
            ORDER BY x.occurred_at, x.id LIMIT 1
        ) nx ON true
        WHERE e.bank_id = %s AND e.id = ANY(%s::bigint[])
    )"""
_WITH_NEIGHBOURS = "ARRAY(SELECT x FROM nb, unnest(ARRAY[nb.id, nb.prev, nb.next]) AS x WHERE x IS NOT NULL)"
_BM25 = f"""(
    SELECT SUM(q.idf * (array_length(u.positions, 1) * {K1 + 1})
               / (array_length(u.positions, 1) + {K1} * (1 - {B} + {B} * length(e.search_vector)::float8 / %s)))
    FROM unnest(ts_filter(setweight(setweight(e.search_vector, 'D'), 'A', %s::text[]), '{{a}}'))
        AS u(lexeme, positions, weights)
    JOIN unnest(%s::text[], %s::float8[]) AS q(lexeme, idf) ON q.lexeme = u.lexeme
)"""
# Metadata and flags come as JSON text, parsed only for the few rows that are packed (``PoolRows.metadata_of``):
# decoding them for every pooled row was a fifth of recall's Python time.
_COLUMNS = (
    "e.id, e.content, e.token_count, e.embedding, e.subject, e.occurred_at, e.recorded_at, e.source,"
    " e.provenance, e.metadata::text, e.injection_flags::text"
)


@dataclass
class PoolRows:
    """Columns of the pool's episodes, in pool order (then the added neighbours, by id)."""

    ids: list[int]
    texts: list[str]
    tokens: np.ndarray
    vectors: np.ndarray
    subjects: list[str]
    occurred_at: list[datetime]
    recorded_at: list[datetime]
    sources: list[str]
    provenance: list[str]
    metadata: list[str]  # JSON text
    flags: list[str]  # JSON text
    lexical: np.ndarray
    # Position of each row's previous and next thread episode among these rows, -1 when it has none here.
    previous: np.ndarray
    following: np.ndarray
    added: int = 0  # rows that are neighbours, not pool candidates
    position: dict[int, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)

    def extended(self, other: PoolRows) -> PoolRows:
        """These rows, then ``other``'s (counted as added rows, thread neighbours not linked)."""
        ids = self.ids + other.ids
        return PoolRows(
            ids=ids,
            texts=self.texts + other.texts,
            tokens=np.concatenate([self.tokens, other.tokens]),
            vectors=np.concatenate([self.vectors, other.vectors]),
            subjects=self.subjects + other.subjects,
            occurred_at=self.occurred_at + other.occurred_at,
            recorded_at=self.recorded_at + other.recorded_at,
            sources=self.sources + other.sources,
            provenance=self.provenance + other.provenance,
            metadata=self.metadata + other.metadata,
            flags=self.flags + other.flags,
            lexical=np.concatenate([self.lexical, other.lexical]),
            previous=np.concatenate([self.previous, np.full(len(other), -1, dtype=np.int64)]),
            following=np.concatenate([self.following, np.full(len(other), -1, dtype=np.int64)]),
            added=self.added + len(other),
            position={pk: index for index, pk in enumerate(ids)},
        )

    def metadata_of(self, i: int) -> dict:
        return json.loads(self.metadata[i]) if self.metadata[i] else {}

    def flags_of(self, i: int) -> tuple:
        return tuple(json.loads(self.flags[i]) or ()) if self.flags[i] else ()


def _lexical(terms: QueryTerms | None) -> tuple[str, list]:
    if terms is None or terms.empty:
        return "0.0::float8", []
    lexemes = sorted(terms.idf)
    return _BM25, [terms.avg_length, lexemes, lexemes, [terms.idf[lexeme] for lexeme in lexemes]]


# The second hop's fetch. ``words``: each source's rarest words (in at least two episodes, at most ``max_share`` of
# the bank) that the question does not use; ``cand``: episodes matching any of them (GIN index; through the
# tenant-checking function under row-level security); ``lead``: those outside the pool, in another thread than the
# source whose word they share, each scored by the best such word: the source's score times idf(word) / idf(seen once).
_FETCH = """
    WITH src(id, score) AS (SELECT * FROM unnest(%s::bigint[], %s::float8[])),
    docs AS (SELECT greatest(doc_count, 1)::float8 AS n FROM beliefs_banktextstats WHERE bank_id = %s),
    words AS MATERIALIZED (
        SELECT w.lexeme, w.df, w.score, w.thread FROM (
            SELECT l.lexeme, t.doc_count AS df, src.score, se.thread,
                   row_number() OVER (PARTITION BY src.id ORDER BY t.doc_count, l.lexeme) AS r
            FROM src
            JOIN beliefs_episode se ON se.id = src.id AND se.bank_id = %s
            CROSS JOIN unnest(tsvector_to_array(se.search_vector)) AS l(lexeme)
            JOIN beliefs_bankterm t ON t.bank_id = %s AND t.lexeme = l.lexeme
            CROSS JOIN docs
            WHERE t.doc_count > 1 AND t.doc_count <= %s * docs.n AND NOT (l.lexeme = ANY(%s::text[]))
        ) w WHERE w.r <= %s
    ),
    cand AS ({candidates}),
    lead AS (
        SELECT e.id, max(w.score * ln(1 + docs.n / w.df) / ln(1 + docs.n)) AS lead
        FROM cand
        JOIN beliefs_episode e ON e.id = cand.id AND e.bank_id = %s
        JOIN words w ON e.search_vector @@ to_tsquery('simple', quote_literal(w.lexeme))
            AND (w.thread = '' OR e.thread <> w.thread)
        CROSS JOIN docs
        WHERE NOT (e.id = ANY(%s::bigint[])) AND ({scope})
        GROUP BY e.id
        ORDER BY lead DESC, e.id
        LIMIT %s
    )"""
_WORDS_QUERY = "(SELECT to_tsquery('simple', string_agg(DISTINCT quote_literal(lexeme), ' | ')) FROM words)"
# The request role matches through the tenant-checking function (row-level security keeps ``@@`` off the GIN index);
# any other role matches directly. Which one this session is, PostgreSQL decides (a one-time filter), not a read.
_FETCH_CANDIDATES = f"""
    SELECT c.id FROM public.memoryhub_keyword_candidates(%s, {_WORDS_QUERY}, %s) c WHERE current_user = %s
    UNION ALL
    (SELECT e.id FROM beliefs_episode e
     WHERE current_user <> %s AND e.bank_id = %s AND e.search_vector @@ {_WORDS_QUERY} LIMIT %s)"""
# Per source, its rarest words that lead on; and how many episodes of their matches are read at most.
FETCH_WORDS_PER_SOURCE = 3
FETCH_MATCHES = 500


def pool_fetch(
    scope: EpisodeScope,
    *,
    sources: list[int],
    source_scores: list[float],
    exclude: list[int],
    terms: QueryTerms,
    limit: int,
    dimensions: int,
    max_share: float = 0.05,
) -> tuple[PoolRows, np.ndarray]:
    """Rows of up to ``limit`` episodes the ``sources`` lead to across threads through a rare word the question
    (``terms``) does not use (``_FETCH``), best lead first, and each one's lead; one read, in the pool's columns."""
    if not sources or limit <= 0:
        return _columns([], [], dimensions, neighbours=False), np.zeros(0)
    lexical, lexical_params = _lexical(terms)
    sql = (
        _FETCH.format(candidates=_FETCH_CANDIDATES, scope=scope.sql)
        + f" SELECT {_COLUMNS}, {lexical}, NULL::bigint, NULL::bigint, lead.lead"
        " FROM lead JOIN beliefs_episode e ON e.id = lead.id ORDER BY lead.lead DESC, e.id"
    )
    b = scope.bank_id
    params = [list(sources), [float(x) for x in source_scores], b, b, b, max_share, sorted(terms.idf)]
    role = request_role()
    params += [FETCH_WORDS_PER_SOURCE, b, FETCH_MATCHES, role, role, b, FETCH_MATCHES]
    params += [b, id_array(exclude), *scope.params, limit, *lexical_params]
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, binary=True)
        rows = cursor.fetchall()
    leads = np.array([float(row[-1]) for row in rows], dtype=np.float64)
    return _columns([row[:-1] for row in rows], [row[0] for row in rows], dimensions, neighbours=False), leads


def pool_rows(
    scope: EpisodeScope, ids: list[int], *, terms: QueryTerms | None, neighbours: bool, dimensions: int
) -> PoolRows:
    """The rows of ``ids`` (episodes of ``scope``'s bank); with ``neighbours``, also their thread neighbours that pass
    ``scope``; with ``terms``, each row's BM25 score."""
    if not ids:
        return _columns([], ids, dimensions, neighbours=False)
    params: list = []
    if terms is not None and not terms.empty:
        lexemes = sorted(terms.idf)
        lexical = _BM25
        params += [terms.avg_length, lexemes, lexemes, [terms.idf[lexeme] for lexeme in lexemes]]
    else:
        lexical = "0.0::float8"
    if neighbours:
        sql = (
            f"WITH {_THREAD_NEIGHBOURS} SELECT {_COLUMNS}, {lexical}, nb.prev, nb.next FROM beliefs_episode e"
            f" LEFT JOIN nb ON nb.id = e.id WHERE e.bank_id = %s AND e.id = ANY({_WITH_NEIGHBOURS})"
            f" AND (nb.id IS NOT NULL OR ({scope.sql}))"
        )
        params = [scope.bank_id, id_array(ids), *params, scope.bank_id, *scope.params]
    else:
        sql = (
            f"SELECT {_COLUMNS}, {lexical}, NULL::bigint, NULL::bigint FROM beliefs_episode e"
            " WHERE e.bank_id = %s AND e.id = ANY(%s::bigint[])"
        )
        params = [*params, scope.bank_id, id_array(ids)]
    connection.ensure_connection()
    # Binary results: parsing the text form of a few hundred 384-dimension vectors cost more than the query.
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, binary=True)
        rows = cursor.fetchall()
    return _columns(rows, ids, dimensions, neighbours=neighbours)


def _columns(rows: list[tuple], ids: list[int], dimensions: int, *, neighbours: bool) -> PoolRows:
    by_id = {row[0]: row for row in rows}
    ordered = [by_id[pk] for pk in ids if pk in by_id]
    in_pool = set(ids)
    ordered += sorted((row for row in rows if row[0] not in in_pool), key=lambda row: row[0])
    n = len(ordered)
    position = {row[0]: index for index, row in enumerate(ordered)}
    vectors = np.zeros((n, dimensions), dtype=np.float32)
    for index, row in enumerate(ordered):
        # A vector in binary is a 4-byte header (dimensions, unused) then big-endian float32s.
        vectors[index] = np.frombuffer(row[3], dtype=">f4", offset=4)
    columns = list(zip(*ordered, strict=True)) if ordered else [()] * 14
    return PoolRows(
        ids=list(columns[0]),
        texts=list(columns[1]),
        tokens=np.fromiter(columns[2], dtype=np.int64, count=n),
        vectors=vectors,
        subjects=list(columns[4]),
        occurred_at=list(columns[5]),
        recorded_at=list(columns[6]),
        sources=list(columns[7]),
        provenance=list(columns[8]),
        metadata=list(columns[9]),
        flags=list(columns[10]),
        lexical=np.array([value or 0.0 for value in columns[11]], dtype=np.float64),
        previous=np.array([position.get(pk, -1) if pk is not None else -1 for pk in columns[12]], dtype=np.int64),
        following=np.array([position.get(pk, -1) if pk is not None else -1 for pk in columns[13]], dtype=np.int64),
        added=n - len([pk for pk in ids if pk in position]),
        position=position,
    )
