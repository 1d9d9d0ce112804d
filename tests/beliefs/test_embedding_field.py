"""The embedding columns' text: every float32 reaches PostgreSQL exactly, in less text than pgvector's own."""

import numpy as np
import pytest
from django.db import connection
from pgvector import Vector

from beliefs.models import Episode
from beliefs.models.embedding_field import vector_text
from memoryhub.embeddings import embed_texts
from tests.helpers.callers import make_caller, retain_texts

pytestmark = pytest.mark.django_db

# Values whose shortest decimal needs all nine digits, the extremes of float32, signed zero and subnormals.
_HARD = np.array(
    [0.1, 1 / 3, -2 / 3, 16777217.0, 3.4028235e38, -1.17549435e-38, 1.4e-45, -0.0, 0.0, 1.0, 0.99999994],
    dtype=np.float32,
)


def _as_stored(text: str) -> np.ndarray:
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::vector::real[]", [text])
        (values,) = cursor.fetchone()
    return np.array(values, dtype=np.float32)


def test_postgresql_reads_back_every_float32_the_text_names():
    rng = np.random.default_rng(3)
    vectors = [_HARD, *(rng.standard_normal(384).astype(np.float32) * scale for scale in (1e-6, 0.05, 1, 1e6))]
    for vector in vectors:
        stored = _as_stored(vector_text(vector))
        assert stored.tobytes() == vector.tobytes()  # bit for bit, -0.0 included


def test_arrays_lists_and_pgvector_vectors_give_the_same_text_a_third_shorter_than_pgvector_s():
    vector = embed_texts(["disk latency on db-3 rose after the backup window"])[0]
    text = vector_text(vector)
    assert text == vector_text(vector.tolist()) == vector_text(Vector(vector)) == vector_text(vector.astype(np.float64))
    assert text.startswith("[") and text.endswith("]") and text.count(",") == 383
    assert len(text) < 0.7 * len(Vector(vector).to_text())


def test_a_vector_that_is_not_one_dimensional_is_refused():
    with pytest.raises(ValueError, match="one-dimensional"):
        vector_text(np.zeros((2, 384), dtype=np.float32))


def test_a_retained_episode_stores_exactly_the_vector_its_text_was_embedded_to():
    caller = make_caller()
    text = "the nightly backup on db-3 ran 40 minutes over its window"
    (episode_id,) = retain_texts(caller.bank, [text])
    stored = np.asarray(Episode.objects.get(pk=episode_id).embedding, dtype=np.float32)
    assert stored.tobytes() == embed_texts([text])[0].astype(np.float32).tobytes()
