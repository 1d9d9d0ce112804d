"""A large bank's own vector index: IVFFlat lists trained on its episodes, rebuilt as the bank grows.

One HNSW graph over every bank's episodes serves small banks. A walk in it must step
over every other bank's rows to collect one bank's candidates, and in a bank that holds
many near-duplicates (a recurring alert, one template with other values) the graph splits
into islands a walk cannot cross: on five banks of 17,000 near-copies the 800-deep walk
found 0.75 of the exact top 10 and cost 23 ms; at 1,000,000 near-copies 0.72. IVFFlat
cannot fail that way: every vector sits in the list of its nearest centroid and a query
reads whole lists. So a bank of ``VECTOR_INDEX_MIN_EPISODES`` or more gets a partial
IVFFlat index of its own (``WHERE bank_id = …``, over a half-precision cast of the
embedding so that a query names it unambiguously), trained on its own episodes. The
semantic channel then reads the nearest lists (on those banks: 0.997 of the exact top 10
in 2.2 ms), merged with a short HNSW walk in banks of ``VECTOR_INDEX_WALK_FROM`` or more,
before the exact re-rank (``beliefs.channels.semantic``).

The same banks get a partial GIN index over their search vectors (``keyword_index_name``).
The keyword channel's match through the full-text index every bank shares collects every
bank's matching rows and intersects them with the bank's thousands of rows: on five banks
of 30,000 near-copies that took 5-12 ms of a recall's 19 ms of PostgreSQL, the bank's own
GIN index 0.4-3.3 ms for the same rows. The planner picks it by itself (the channel's
queries name the bank), so no read changes; it is built with the vector index, kept while
the bank holds one (no centroids: growth needs no rebuild) and dropped with it.

Every partial index costs each query on the episode table a little planning (about 2 µs
per index), so at most ``VECTOR_INDEX_MAX_BANKS`` banks hold them: the largest.

Centroids are fixed when the index is built and later rows join the nearest list, so the
index is rebuilt once the bank has doubled or halved since, and dropped when the bank falls
below half the threshold. Indexes are built ``CONCURRENTLY`` (retains go on meanwhile;
about a second per 20,000 episodes, a minute per million, on 2 cores) by the maintenance
role: as soon as extraction notices that a bank crossed a size that asks for one
(``vector_index_due``, then ``refresh_bank_vector_index_task``), from the hourly
``refresh_vector_indexes_task``, or from ``manage.py vector_indexes`` after a bulk import.
"""

from __future__ import annotations

import logging
import math
import re

from django.conf import settings
from psycopg import sql

from banks.models import Bank
from beliefs.models import BankTextStats
from memoryhub.tenancy import maintenance_session, rls_bypass

logger = logging.getLogger(__name__)

_NAME = re.compile(r"^beliefs_episode_ivf_b\d+_n\d+(_l\d+)?$")  # names before lists were part of them too
_KEYWORD_NAME = re.compile(r"^beliefs_episode_gin_b(\d+)$")


def index_lists(episodes: int) -> int:
    """IVFFlat lists for a bank of ``episodes``: the square root of its size, at least ten.

    More and shorter lists than pgvector's guidance for IVFFlat alone (a thousand rows per list up to a
    million): the HNSW walk already supplies most of the top-k and the lists only catch what it missed, and
    fine lists catch it reading fewer rows. At 100,000 episodes, 316 lists with 20 read agree with exact
    search as well as 100 lists with 20 read (1.0 near-copies, 0.999 real sentences) and cost half as much.
    """
    return max(10, math.isqrt(max(0, episodes)))


def index_name(bank_id: int, episodes: int, lists: int) -> str:
    """The index of one build: the bank, how many episodes it held then (a rebuild needs twice or half as many)
    and its lists (a changed rule for lists rebuilds it too)."""
    return f"beliefs_episode_ivf_b{int(bank_id)}_n{int(episodes)}_l{int(lists)}"


def keyword_index_name(bank_id: int) -> str:
    """The bank's own full-text (GIN) index, held while the bank holds a vector index of its own."""
    return f"beliefs_episode_gin_b{int(bank_id)}"


def _current_names(bank: Bank) -> set[str]:
    """The names the bank's current index may carry: this release's, and the one without lists before it."""
    if bank.vector_index_lists is None:
        return set()
    episodes = bank.vector_index_episodes
    return {
        index_name(bank.pk, episodes, bank.vector_index_lists),
        f"beliefs_episode_ivf_b{int(bank.pk)}_n{int(episodes)}",
    }


def _bank_episodes(bank: Bank) -> int:
    with rls_bypass():
        return BankTextStats.objects.filter(bank_id=bank.pk).values_list("doc_count", flat=True).first() or 0


def _room_for_another() -> bool:
    with rls_bypass():
        held = Bank.objects.filter(vector_index_lists__isnull=False).count()
    return held < settings.MEMORYHUB["VECTOR_INDEX_MAX_BANKS"]


def _needs(bank: Bank, episodes: int, *, eligible: bool | None = None) -> str:
    """What the bank's index needs now: ``build``, ``rebuild``, ``drop`` or nothing (``""``).

    ``eligible``: whether the bank is among the banks allowed an index (the sweep knows which); by default a
    bank that holds one keeps it and another may be built while fewer than ``VECTOR_INDEX_MAX_BANKS`` hold one.
    """
    threshold = settings.MEMORYHUB["VECTOR_INDEX_MIN_EPISODES"]
    if bank.vector_index_lists is None:
        if episodes < threshold:
            return ""
        return "build" if (eligible if eligible is not None else _room_for_another()) else ""
    if episodes < threshold / 2 or eligible is False:
        return "drop"
    built_at = bank.vector_index_episodes
    grown_or_shrunk = episodes >= 2 * built_at or episodes <= built_at / 2
    return "rebuild" if grown_or_shrunk or bank.vector_index_lists != index_lists(built_at) else ""


def _episode_indexes() -> dict[str, bool]:
    """Every index on the episode table, and whether it is valid (an interrupted concurrent build leaves one that
    is not, and that PostgreSQL keeps up to date but never reads)."""
    with maintenance_session() as conn:
        rows = conn.execute(
            "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
            " WHERE i.indrelid = 'public.beliefs_episode'::regclass"
        ).fetchall()
    return dict(rows)


def _build(bank_id: int, episodes: int, lists: int) -> None:
    dimensions = int(settings.MEMORYHUB["EMBEDDING_DIMENSIONS"])
    statement = sql.SQL(
        "CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON public.beliefs_episode USING ivfflat "
        "((embedding::halfvec({dimensions})) halfvec_cosine_ops) WITH (lists = {lists}) WHERE bank_id = {bank}"
    ).format(
        name=sql.Identifier(index_name(bank_id, episodes, lists)),
        dimensions=sql.Literal(dimensions),
        lists=sql.Literal(int(lists)),
        bank=sql.Literal(int(bank_id)),
    )
    with maintenance_session() as conn:
        # k-means over the bank's sample wants memory; the setting lasts for this session only.
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute(statement)


def _keyword_index_ensure(bank_id: int) -> None:
    """Build the bank's own GIN index unless a valid one is there."""
    name = keyword_index_name(bank_id)
    valid = _episode_indexes().get(name)
    if valid:
        return
    if valid is False:  # a build that was interrupted: CREATE … IF NOT EXISTS would keep it as it is
        _drop(name)
    statement = sql.SQL(
        "CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON public.beliefs_episode USING gin (search_vector)"
        " WHERE bank_id = {bank}"
    ).format(name=sql.Identifier(name), bank=sql.Literal(int(bank_id)))
    with maintenance_session() as conn:
        conn.execute(statement)


def _drop(name: str) -> None:
    with maintenance_session() as conn:
        conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))


def vector_index_due(bank: Bank) -> bool:
    """Whether ``bank``'s size asks for its own vector index to be built or rebuilt now (one small read)."""
    return _needs(bank, _bank_episodes(bank)) in ("build", "rebuild")


def bank_vector_index_refresh(*, bank: Bank, eligible: bool | None = None) -> str:
    """Build, rebuild or drop ``bank``'s own vector index as its size asks; returns what was done.

    One of ``"built"``, ``"rebuilt"``, ``"dropped"`` or ``"unchanged"``. Safe to repeat and to interrupt: a new
    index is complete before the bank row names it, and the old one is dropped only after. ``eligible`` as for
    ``_needs`` (the sweep passes whether the bank is among the largest).
    """
    episodes = _bank_episodes(bank)
    needs = _needs(bank, episodes, eligible=eligible)
    if not needs:
        if bank.vector_index_lists is not None:
            _keyword_index_ensure(bank.pk)  # a bank indexed before keyword indexes were, or a build interrupted
        return "unchanged"
    previous = _current_names(bank)
    lists, built_at = (None, 0) if needs == "drop" else (index_lists(episodes), episodes)
    if lists is not None:
        _build(bank.pk, built_at, lists)
        _keyword_index_ensure(bank.pk)
    with rls_bypass():
        Bank.objects.filter(pk=bank.pk).update(vector_index_lists=lists, vector_index_episodes=built_at)
    bank.vector_index_lists, bank.vector_index_episodes = lists, built_at
    built = {index_name(bank.pk, built_at, lists)} if lists is not None else set()
    for name in sorted(previous - built):
        _drop(name)
    if lists is None:
        _drop(keyword_index_name(bank.pk))
    logger.info("vector index of bank %s: %s (%s episodes, %s lists)", bank.pk, needs, episodes, lists)
    return {"build": "built", "rebuild": "rebuilt", "drop": "dropped"}[needs]


def vector_indexes_refresh() -> dict[str, int]:
    """Refresh every bank's own vector index and drop indexes no bank names (a forgotten bank's); returns counts.

    The ``VECTOR_INDEX_MAX_BANKS`` largest banks over the threshold are the ones allowed an index: a bank that
    fell out of them loses its index before one that entered gets its own.
    """
    threshold = settings.MEMORYHUB["VECTOR_INDEX_MIN_EPISODES"]
    counts = {"built": 0, "rebuilt": 0, "dropped": 0, "unchanged": 0}
    with rls_bypass():
        sizes = dict(BankTextStats.objects.filter(doc_count__gte=threshold).values_list("bank_id", "doc_count"))
        banks = list(Bank.objects.filter(pk__in=sizes) | Bank.objects.filter(vector_index_lists__isnull=False))
    chosen = set(sorted(sizes, key=lambda pk: (-sizes[pk], pk))[: settings.MEMORYHUB["VECTOR_INDEX_MAX_BANKS"]])
    for bank in sorted(banks, key=lambda bank: (bank.pk in chosen, bank.pk)):  # drops before builds
        counts[bank_vector_index_refresh(bank=bank, eligible=bank.pk in chosen)] += 1
    named = set().union(*(_current_names(bank) for bank in banks))
    holders = {bank.pk for bank in banks if bank.vector_index_lists is not None}
    for name in sorted(_episode_indexes()):
        if _NAME.match(name) and name not in named:
            _drop(name)
            counts["dropped"] += 1
        # A forgotten bank's keyword index goes with its vector index (counted with it).
        elif (match := _KEYWORD_NAME.match(name)) and int(match.group(1)) not in holders:
            _drop(name)
    return counts
