"""Extraction reads waiting episodes from a queue of their own and never rewrites an episode row.

An update of a 2 KB episode row writes a new version with a new entry in each of the table's
indexes (the HNSW graph's included): the row's version (``xmin``) must be the one retain wrote.
"""

import pytest
from django.db import connection

from beliefs.models import EpisodeExtraction, Fact
from beliefs.services.extract import bank_extract
from beliefs.services.rederive import episodes_rederive
from tests.helpers.callers import retain_texts


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
