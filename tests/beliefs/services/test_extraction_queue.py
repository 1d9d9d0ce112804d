"""Extraction reads waiting episodes from a queue of their own and never rewrites an episode row.

An update of a 2 KB episode row writes a new version with a new entry in each of the table's
indexes (the HNSW graph's included): the row's version (``xmin``) must be the one retain wrote.
"""

import pytest
from django.db import connection

from beliefs.models import Episode, EpisodeExtraction, Fact
from beliefs.services.extract import bank_extract
from beliefs.services.rederive import episodes_rederive
from tests.helpers.callers import retain_texts
from tests.portability.helpers import body, post_import, writer_of


def _episode_updates() -> int:
    """Row updates of the episode table in this transaction (a test runs in one)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relname = 'beliefs_episode'")
        return cursor.fetchone()[0]


def _row_versions(episode_ids: list[int]) -> dict[int, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, xmin::text FROM beliefs_episode WHERE id = ANY(%s)", [episode_ids])
        return dict(cursor.fetchall())


@pytest.mark.django_db
def test_extraction_marks_the_queue_not_the_episode(caller):
    ids = retain_texts(caller.bank, ["Alice lives in Paris.", "Bob works at Initech."])
    written = _row_versions(ids)
    waiting = EpisodeExtraction.objects.filter(bank=caller.bank, extracted_at__isnull=True)
    assert sorted(waiting.values_list("episode_id", flat=True)) == sorted(ids)

    result = bank_extract(bank=caller.bank)

    assert (result.episodes, result.remaining) == (2, 0)
    assert Fact.objects.filter(bank=caller.bank, episode_id__in=ids).count() >= 2
    assert not waiting.exists()
    assert _row_versions(ids) == written  # the episodes' rows are the versions retain wrote


@pytest.mark.django_db
def test_oldest_waiting_episodes_go_first_and_a_rederived_one_waits_again(caller):
    ids = retain_texts(caller.bank, [f"Note {n}: Carol moved to Berlin." for n in range(5)])
    assert bank_extract(bank=caller.bank, limit=3).remaining == 2
    done = set(
        EpisodeExtraction.objects.filter(bank=caller.bank, extracted_at__isnull=False).values_list("pk", flat=True)
    )
    assert done == set(ids[:3])  # recorded together: then by id, oldest first

    bank_extract(bank=caller.bank)
    episodes_rederive(bank=caller.bank, changes={ids[0]: ("Note 0: Carol moved to Lisbon.", {})})
    again = EpisodeExtraction.objects.filter(bank=caller.bank, extracted_at__isnull=True)
    assert list(again.values_list("episode_id", flat=True)) == [ids[0]]


@pytest.mark.django_db
def test_import_and_extraction_write_each_episode_row_once(caller):
    before = _episode_updates()
    record = {
        "type": "episode", "ref": "key:q1", "content": "Dana moved to Oslo on 3 May 2026.",
        "occurred_at": "2026-05-04T09:00:00Z", "recorded_at": "2026-05-04T09:00:00Z",
    }  # fmt: skip
    response = post_import(writer_of(caller.bank), body(record))
    assert response.status_code == 200 and response.json()["created"] == {"episode": 1}
    episode = Episode.objects.get(bank=caller.bank, dedupe_key="key:q1")
    assert episode.mentions_time and episode.mentioned_start is not None  # its times, written with the row
    assert EpisodeExtraction.objects.get(episode=episode).extracted_at is None  # waits, from an untrusted file
    bank_extract(bank=caller.bank)
    assert EpisodeExtraction.objects.get(episode=episode).extracted_at is not None
    assert _episode_updates() == before
