"""The embedding model's process set-up."""

import gc
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from memoryhub import embeddings
from memoryhub.embeddings import embed_query, embed_texts, model_loaded, warm_up
from tests.helpers.processes import ROOT


@pytest.fixture(autouse=True)
def float_batches(settings, request):
    """Batches in float32 (the paths these tests pin to the model within 1e-5), unless a test is marked ``bfloat16``
    (batches grouped in bfloat16, within a cosine of the model)."""
    choice = "on" if request.node.get_closest_marker("bfloat16") else "off"
    settings.MEMORYHUB = {**settings.MEMORYHUB, "BFLOAT16_BATCHES": choice}
    embeddings._bfloat16_batches.cache_clear()
    yield
    embeddings._bfloat16_batches.cache_clear()


def test_warm_up_loads_the_model_and_hides_the_long_lived_heap_from_the_collector():
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    warm_up()
    assert model_loaded()
    # The model, Django and imported code: hundreds of thousands of objects a full collection no longer walks.
    assert gc.get_freeze_count() > 100_000
    cycle = []
    cycle.append(cycle)
    del cycle
    assert gc.collect() >= 1  # what is made afterwards is still collected


def test_importing_memoryhub_keeps_numerical_libraries_to_one_thread():
    # Without the limit OpenBLAS starts a worker per core that spins after every matrix product.
    limits = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}
    env = {name: value for name, value in os.environ.items() if name not in limits}
    code = (
        "import json, memoryhub, numpy, threadpoolctl;"
        "print(json.dumps(sorted({p['num_threads'] for p in threadpoolctl.threadpool_info()})))"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [1]


QUERIES = [
    "replica lag on db-03",
    "",
    "Was hat die Bereitschaft nach dem Ausfall geändert? 日本語のテキスト 🙂",
    " ".join(["incident review of the payment gateway outage"] * 60),  # past the model's 256 tokens: truncated
]


def _query_vectors():
    embeddings.query_cache_clear()
    return np.stack([embed_query(text) for text in QUERIES])


def test_a_query_is_embedded_by_onnx_runtime_exactly_as_the_model_embeds_it(monkeypatch):
    from memoryhub.onnx_encoder import OnnxQueryEncoder

    embeddings._query_encoder.cache_clear()
    assert isinstance(embeddings._query_encoder(), OnnxQueryEncoder)  # the default model runs in ONNX Runtime
    # Exporting leaves the model as it was: in eval mode (in training mode dropout makes every vector random).
    assert not embeddings._model()[0].auto_model.training
    fast = _query_vectors()
    monkeypatch.setattr(embeddings, "_query_encoder", lambda: None)  # the model's own path
    assert np.abs(fast - _query_vectors()).max() < 1e-5
    assert np.abs(fast - embed_texts(QUERIES)).max() < 1e-5
    assert fast.dtype == np.float32 and np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)


def test_the_exported_graph_is_kept_in_the_data_directory_and_a_damaged_one_is_replaced(
    settings, tmp_path, monkeypatch
):
    from memoryhub import onnx_encoder
    from memoryhub.onnx_encoder import OnnxQueryEncoder, graph_path

    settings.DATA_DIR = tmp_path
    graph = graph_path(tmp_path / "models", embeddings.model_path())
    embeddings._query_encoder.cache_clear()
    try:
        assert isinstance(embeddings._query_encoder(), OnnxQueryEncoder) and graph.stat().st_size > 1_000_000
        assert list(graph.parent.iterdir()) == [graph]  # no partial file left behind
        exports = []
        real_export = onnx_encoder._export
        monkeypatch.setattr(onnx_encoder, "_export", lambda *args: exports.append(args) or real_export(*args))
        embeddings._query_encoder.cache_clear()
        assert isinstance(embeddings._query_encoder(), OnnxQueryEncoder) and exports == []  # loaded, not exported
        graph.write_bytes(b"not a graph")
        embeddings._query_encoder.cache_clear()
        assert not isinstance(embeddings._query_encoder(), OnnxQueryEncoder)  # TorchScript stands in
        assert not graph.exists()  # and the next process exports again
        embeddings._query_encoder.cache_clear()
        assert isinstance(embeddings._query_encoder(), OnnxQueryEncoder) and len(exports) == 1
        assert np.abs(_query_vectors() - embed_texts(QUERIES)).max() < 1e-5
    finally:
        embeddings._query_encoder.cache_clear()
        embeddings.query_cache_clear()


def test_the_torchscript_encoder_is_chosen_by_setting_and_embeds_as_the_model_does(settings):
    import torch

    settings.MEMORYHUB = {**settings.MEMORYHUB, "QUERY_ENCODER": "torchscript"}
    embeddings._query_encoder.cache_clear()
    try:
        assert isinstance(embeddings._query_encoder(), torch.jit.ScriptModule)
        assert np.abs(_query_vectors() - embed_texts(QUERIES)).max() < 1e-5
        settings.MEMORYHUB = {**settings.MEMORYHUB, "QUERY_ENCODER": "model"}
        embeddings._query_encoder.cache_clear()
        assert embeddings._query_encoder() is None
        assert np.abs(_query_vectors() - embed_texts(QUERIES)).max() < 1e-5
    finally:
        embeddings._query_encoder.cache_clear()
        embeddings.query_cache_clear()


def test_an_encoder_that_does_not_match_the_model_is_not_used(monkeypatch):
    from memoryhub.onnx_encoder import OnnxQueryEncoder

    real = embeddings._embed_one

    def onnx_wrong(encoder, text):  # ONNX Runtime gives other vectors: TorchScript is checked next and kept
        return np.zeros(384, dtype=np.float32) if isinstance(encoder, OnnxQueryEncoder) else real(encoder, text)

    embeddings._query_encoder.cache_clear()
    try:
        monkeypatch.setattr(embeddings, "_embed_one", onnx_wrong)
        assert embeddings._query_encoder() is not None
        assert not isinstance(embeddings._query_encoder(), OnnxQueryEncoder)
        embeddings._query_encoder.cache_clear()
        monkeypatch.setattr(embeddings, "_embed_one", lambda encoder, text: np.zeros(384, dtype=np.float32))
        assert embeddings._query_encoder() is None
    finally:
        embeddings._query_encoder.cache_clear()


def test_a_repeated_query_is_answered_from_the_cache_with_the_same_vector(monkeypatch):
    embeddings.query_cache_clear()
    first = embed_query("replica  lag on\tdb-03 ")
    calls = []
    monkeypatch.setattr(embeddings, "_encode_query", lambda text: calls.append(text) or np.ones(384, np.float32))
    again = embed_query("replica lag on db-03")  # the same words: whitespace runs do not matter to the tokenizer
    assert calls == [] and again is first and not again.flags.writeable
    assert np.abs(first - embed_texts(["replica lag on db-03"])[0]).max() < 1e-5
    embed_query("replica lag on db-04")
    assert calls == ["replica lag on db-04"]  # different text: encoded
    embeddings.query_cache_clear()


def test_queries_embedded_on_several_threads_at_once_match_the_model():
    from concurrent.futures import ThreadPoolExecutor

    embeddings.query_cache_clear()
    texts = [f"disk latency alerts on db-{n:02d} during backups" for n in range(24)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        vectors = np.stack(list(pool.map(embed_query, texts)))
    assert np.abs(vectors - embed_texts(texts)).max() < 1e-5


def _on_threads_beside_the_model(batches: list[list[str]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each batch as ``embed_texts`` gives it, four batches on four threads at once, beside the model's own
    ``encode`` of it."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=4) as pool:
        embedded = list(pool.map(embed_texts, batches))
    model = embeddings._model()
    return [
        (vectors, model.encode(batch, normalize_embeddings=True, convert_to_numpy=True))
        for batch, vectors in zip(batches, embedded, strict=True)
    ]


@pytest.mark.parametrize("encoder", ["auto", "torchscript"])
def test_batches_embedded_on_several_threads_at_once_match_the_model_s_own_encode(settings, encoder):
    # auto: one text at a time in ONNX Runtime; torchscript: the direct padded batch on per-thread tokenizers.
    from memoryhub.onnx_encoder import OnnxQueryEncoder

    settings.MEMORYHUB = {**settings.MEMORYHUB, "QUERY_ENCODER": encoder}
    embeddings._query_encoder.cache_clear()
    try:
        assert isinstance(embeddings._query_encoder(), OnnxQueryEncoder) == (encoder == "auto")
        assert embeddings._direct_batches()  # the default model can take the direct path
        batches = [[f"host db-{n:02d} latency {n * 37} ms", *QUERIES, f"note {n}"] for n in range(8)]
        for vectors, expected in _on_threads_beside_the_model(batches):
            assert vectors.dtype == np.float32 and vectors.shape == expected.shape
            assert np.abs(vectors - expected).max() < 1e-5
    finally:
        embeddings._query_encoder.cache_clear()


def test_int8_precision_runs_a_quantized_copy_close_to_the_model_and_falls_back_when_it_is_not(
    settings, tmp_path, monkeypatch
):
    from memoryhub.onnx_encoder import OnnxQueryEncoder, graph_path

    settings.DATA_DIR = tmp_path
    settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDING_PRECISION": "int8"}
    graph = graph_path(tmp_path / "models", embeddings.model_path())
    int8 = graph.with_name(f"{graph.stem}-int8.onnx")
    embeddings._query_encoder.cache_clear()
    try:
        encoder = embeddings._query_encoder()
        assert isinstance(encoder, OnnxQueryEncoder) and encoder._session._model_path == str(int8)
        # Written once beside the float graph, a quarter of its size (8-bit weights), no partial file left.
        assert sorted(graph.parent.iterdir()) == sorted([graph, int8])
        assert int8.stat().st_size < graph.stat().st_size / 3
        quantized = _query_vectors()
        assert np.abs(quantized - embed_texts(QUERIES)).max() < 1e-6  # texts take the same int8 path as queries
        monkeypatch.setattr(embeddings, "_query_encoder", lambda: None)
        exact = _query_vectors()
        cosines = np.sum(quantized * exact, axis=1)
        assert cosines.min() >= 0.97 and np.abs(quantized - exact).max() > 1e-4  # close to the model, not equal
        assert np.allclose(np.linalg.norm(quantized, axis=1), 1.0, atol=1e-5)
        monkeypatch.undo()

        # A quantized copy that no longer agrees with the model (here: every vector the same) is passed over.
        real = embeddings._embed_one

        def int8_wrong(encoder, text):
            if getattr(encoder, "_session", None) is not None and encoder._session._model_path == str(int8):
                return np.full(384, 384**-0.5, dtype=np.float32)
            return real(encoder, text)

        monkeypatch.setattr(embeddings, "_embed_one", int8_wrong)
        embeddings._query_encoder.cache_clear()
        encoder = embeddings._query_encoder()
        assert isinstance(encoder, OnnxQueryEncoder) and encoder._session._model_path == str(graph)
        assert not int8.exists()  # made again from the graph by the next process
    finally:
        embeddings._query_encoder.cache_clear()
        embeddings.query_cache_clear()


def test_an_unknown_embedding_precision_stops_start_up_with_the_choices():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memoryhub.settings", "MEMORYHUB_EMBEDDING_PRECISION": "int4"}
    code = "import django; django.setup()"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode != 0
    assert "MEMORYHUB_EMBEDDING_PRECISION is 'float32' (the default) or 'int8'." in done.stderr


def test_length_groups_pad_little_and_keep_every_text_once():
    from memoryhub.embeddings import BF16_MAX_BATCH, BF16_MAX_PADDING, length_groups

    lengths = [25, 24, 26, 25, 120, 118, 3, 60, 25, 131, *([30] * 40)]
    groups = length_groups(lengths)
    assert sorted(i for group in groups for i in group) == list(range(len(lengths)))
    for group in groups:
        padded = max(lengths[i] for i in group) * len(group)
        assert padded - sum(lengths[i] for i in group) <= BF16_MAX_PADDING * padded
        assert len(group) <= BF16_MAX_BATCH
    assert [6] in groups and [7] in groups  # a 3-token and a 60-token text pad with nothing near their length
    assert {4, 5, 9} in [set(group) for group in groups]  # 118, 120, 131: one batch with 9% padding
    # 24-26 and the forty 30s pad little together, but a batch holds 32: the 45 short notes take two batches.
    assert sorted(len(group) for group in groups if lengths[group[-1]] == 30) == [13, 32]


def test_float32_batches_of_one_length_run_through_onnx_runtime_together_as_one_at_a_time_would(monkeypatch):
    from memoryhub.onnx_encoder import OnnxQueryEncoder

    assert not embeddings._bfloat16_batches()  # "off"
    notes = [f"agent-{n} observed checkout on db-{n:02d}: latency {n * 37} ms" for n in range(10)]
    texts = [*notes, "replica lag", "a longer note " * 30]
    encoder = embeddings._query_encoder()
    alone = np.stack([embeddings._embed_one(encoder, text) for text in texts])
    shapes = []
    real = OnnxQueryEncoder.__call__
    monkeypatch.setattr(
        OnnxQueryEncoder, "__call__", lambda self, ids, mask: shapes.append(ids.shape) or real(self, ids, mask)
    )
    vectors = embed_texts(texts)
    assert np.abs(vectors - alone).max() < 1e-6
    assert sorted(rows for rows, _ in shapes) == [1, 1, 10]  # the ten notes in one call; the others alone


@pytest.mark.bfloat16
def test_batches_in_bfloat16_stay_within_a_cosine_of_the_model_and_lone_short_texts_stay_exact(monkeypatch):
    assert embeddings._bfloat16_batches()  # "on": whatever the CPU (without bfloat16 instructions, only slower)
    notes = [f"agent-{n} observed checkout on db-{n:02d}: latency {n * 37} ms" for n in range(10)]
    batches = [[*notes, *QUERIES, f"note {n}"] for n in range(4)]
    for vectors, expected in _on_threads_beside_the_model(batches):
        assert vectors.dtype == np.float32 and vectors.shape == expected.shape
        cosines = np.sum(vectors * expected, axis=1)
        assert cosines.min() >= 0.9999
        assert np.abs(vectors[:10] - expected[:10]).max() > 1e-6  # the notes went through bfloat16: not bit-equal
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # One short text has no batch to share: it takes the query encoder's float path, equal to a query's vector.
    embeddings.query_cache_clear()
    assert np.abs(embed_texts(["replica lag on db-03"])[0] - embed_query("replica lag on db-03")).max() < 1e-6
    calls = []
    real = embeddings._embed_ids
    monkeypatch.setattr(embeddings, "_embed_ids", lambda enc, ids, mask: calls.append(ids) or real(enc, ids, mask))
    embed_texts(notes)
    assert calls == []  # ten notes of one length: one bfloat16 batch
    embed_texts([*notes, "note 1"])
    assert len(calls) == 1  # and a short text with no partner: on its own, through the float graph


@pytest.mark.bfloat16
def test_bfloat16_batches_that_do_not_match_the_model_are_not_used(settings, monkeypatch):
    monkeypatch.setattr(embeddings, "_encode_grouped", lambda texts, encoder: np.zeros((len(texts), 384), np.float32))
    assert not embeddings._bfloat16_batches()
    settings.MEMORYHUB = {**settings.MEMORYHUB, "BFLOAT16_BATCHES": "on", "EMBEDDING_PRECISION": "int8"}
    monkeypatch.undo()
    embeddings._bfloat16_batches.cache_clear()
    assert not embeddings._bfloat16_batches()  # int8 runs its own copy for everything


def test_bfloat16_batches_follow_the_cpu_by_default(settings, monkeypatch):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "BFLOAT16_BATCHES": "auto"}
    for has_bf16 in (False, True):
        monkeypatch.setattr(embeddings, "cpu_has_bfloat16", lambda has_bf16=has_bf16: has_bf16)
        embeddings._bfloat16_batches.cache_clear()
        assert embeddings._bfloat16_batches() is has_bf16


def test_an_unknown_bfloat16_choice_stops_start_up_with_the_choices():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memoryhub.settings", "MEMORYHUB_BFLOAT16_BATCHES": "yes"}
    code = "import django; django.setup()"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode != 0
    assert "MEMORYHUB_BFLOAT16_BATCHES is 'auto' (the default), 'on' or 'off'." in done.stderr
