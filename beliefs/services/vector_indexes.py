"""A large bank's own vector index: IVFFlat lists trained on its episodes, rebuilt as the bank grows.

One HNSW graph over every bank's episodes serves most banks. In a large bank that holds
many near-duplicates (a recurring alert, one template with other values) the graph splits
into islands a walk cannot cross, and the approximate top-k drifts from the exact one as
the bank grows: 0.72 top-10 agreement at 1,000,000 near-copies, where a walk that starts
in the wrong island never leaves it. IVFFlat cannot fail that way: every vector sits in the
list of its nearest centroid and a query reads whole lists. So a bank of
``VECTOR_INDEX_MIN_EPISODES`` or more gets a partial IVFFlat index of its own
(``WHERE bank_id = …``, over a half-precision cast of the embedding so that a query names
it unambiguously), trained on its own episodes. The semantic channel then merges a short
HNSW walk with a read of the nearest lists before the exact re-rank
(``beliefs.channels.semantic``).

Centroids are fixed when the index is built and later rows join the nearest list, so the
index is rebuilt once the bank has doubled or halved since, and dropped when the bank falls
below half the threshold. Indexes are built ``CONCURRENTLY`` (retains go on meanwhile;
about a minute per million episodes on 2 cores) by the maintenance role, from the hourly
``refresh_vector_indexes_task`` or ``manage.py vector_indexes``.
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


def _needs(bank: Bank, episodes: int) -> str:
    """What the bank's index needs now: ``build``, ``rebuild``, ``drop`` or nothing (``""``)."""
    threshold = settings.MEMORYHUB["VECTOR_INDEX_MIN_EPISODES"]
    if bank.vector_index_lists is None:
        return "build" if episodes >= threshold else ""
    if episodes < threshold / 2:
        return "drop"
    built_at = bank.vector_index_episodes
    grown_or_shrunk = episodes >= 2 * built_at or episodes <= built_at / 2
    return "rebuild" if grown_or_shrunk or bank.vector_index_lists != index_lists(built_at) else ""


def _existing_indexes() -> set[str]:
    """Names of every per-bank IVFFlat index on the episode table."""
    with maintenance_session() as conn:
        rows = conn.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'beliefs_episode'"
        ).fetchall()
    return {name for (name,) in rows if _NAME.match(name)}


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


def _drop(name: str) -> None:
    with maintenance_session() as conn:
        conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))


def bank_vector_index_refresh(*, bank: Bank) -> str:
    """Build, rebuild or drop ``bank``'s own vector index as its size asks; returns what was done.

    One of ``"built"``, ``"rebuilt"``, ``"dropped"`` or ``"unchanged"``. Safe to repeat and to interrupt: a new
    index is complete before the bank row names it, and the old one is dropped only after.
    """
    episodes = _bank_episodes(bank)
    needs = _needs(bank, episodes)
    if not needs:
        return "unchanged"
    previous = _current_names(bank)
    lists, built_at = (None, 0) if needs == "drop" else (index_lists(episodes), episodes)
    if lists is not None:
        _build(bank.pk, built_at, lists)
    with rls_bypass():
        Bank.objects.filter(pk=bank.pk).update(vector_index_lists=lists, vector_index_episodes=built_at)
    bank.vector_index_lists, bank.vector_index_episodes = lists, built_at
    built = {index_name(bank.pk, built_at, lists)} if lists is not None else set()
    for name in sorted(previous - built):
        _drop(name)
    logger.info("vector index of bank %s: %s (%s episodes, %s lists)", bank.pk, needs, episodes, lists)
    return {"build": "built", "rebuild": "rebuilt", "drop": "dropped"}[needs]


def vector_indexes_refresh() -> dict[str, int]:
    """Refresh every bank's own vector index and drop indexes no bank names (a forgotten bank's); returns counts."""
    threshold = settings.MEMORYHUB["VECTOR_INDEX_MIN_EPISODES"]
    counts = {"built": 0, "rebuilt": 0, "dropped": 0, "unchanged": 0}
    with rls_bypass():
        large = set(BankTextStats.objects.filter(doc_count__gte=threshold).values_list("bank_id", flat=True))
        banks = list(Bank.objects.filter(pk__in=large) | Bank.objects.filter(vector_index_lists__isnull=False))
    for bank in banks:
        counts[bank_vector_index_refresh(bank=bank)] += 1
    named = set().union(*(_current_names(bank) for bank in banks))
    for name in sorted(_existing_indexes() - named):
        _drop(name)
        counts["dropped"] += 1
    return counts
