"""The episode graph (the HNSW index every retained episode is inserted into): the options the database holds are
the ones the model declares, and the migrations leave nothing of the models unrecorded."""

import io

import pytest
from django.core.management import call_command
from django.db import connection

from beliefs.models import Episode

pytestmark = pytest.mark.django_db


def _graph_index():
    return next(index for index in Episode._meta.indexes if index.name == "beliefs_episode_embedding_hnsw")


def test_the_database_s_episode_graph_inserts_with_the_effort_the_model_declares():
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'beliefs_episode_embedding_hnsw'")
        (options,) = cursor.fetchone()
    declared = _graph_index()
    assert sorted(options) == sorted([f"m={declared.m}", f"ef_construction={declared.ef_construction}"])
    assert declared.ef_construction == 64  # half of an insert's cost at 128, the same neighbours found


def test_the_migrations_record_every_model_change_of_the_beliefs_app():
    out = io.StringIO()
    call_command("makemigrations", "beliefs", "--check", "--dry-run", stdout=out)  # exits 1 on a missing one
    assert "No changes detected" in out.getvalue()
