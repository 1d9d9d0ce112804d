"""Embeddings stay inside their rows, so vector scans never fetch them from TOAST."""

import pytest
from django.db import connection

from beliefs.models import Episode
from tests.helpers.callers import retain_texts


def _inline(episode_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_column_toast_chunk_id(embedding) IS NULL, pg_column_size(embedding)"
            " FROM beliefs_episode WHERE id = %s",
            [episode_id],
        )
        inline, size = cursor.fetchone()
    assert size > 1536  # 384 float32 values plus the header: the vector was stored, uncompressed
    return inline


@pytest.mark.django_db
def test_a_long_episode_keeps_its_embedding_inline(caller):
    # About 1,100 characters of varied prose: with the vector the row is over the 2 kB TOAST threshold.
    notes = (f"Shift note {n}: checked queue {n * 7} and host web-{n:02d}, nothing unusual." for n in range(16))
    content = " ".join(notes)
    [episode_id] = retain_texts(caller.bank, [content])
    assert len(Episode.objects.get(pk=episode_id).content) > 1000
    assert _inline(episode_id)


@pytest.mark.django_db
def test_every_embedding_column_prefers_inline_storage():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, a.attname, a.attstorage FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
            " JOIN pg_type t ON t.oid = a.atttypid"
            " WHERE t.typname = 'vector' AND c.relkind = 'r' AND c.relname LIKE 'beliefs_%%' AND NOT a.attisdropped"
        )
        columns = cursor.fetchall()
    assert len(columns) == 5
    assert {(table, column) for table, column, storage in columns if storage != "m"} == set()
