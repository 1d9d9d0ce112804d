"""A corpus of real English sentences that ships offline, embedded once and cached outside git.

Sources, in order: every LoCoMo turn in ``../shared/eval/locomo``; generated alert,
analyst, incident and customer text (``common.synthetic_episode`` with fresh values);
and sentences from the docstrings and documentation files of the installed Python
packages (Django, NumPy, torch, Celery, …) and of Python's standard library — real prose written by people, on many
topics. Sentences are de-duplicated and kept between 40 and 400 characters.

The embeddings (the bundled all-MiniLM-L6-v2, like production) are cached in
``$MEMORYHUB_BENCH_CACHE`` (default ``~/.cache/memoryhub-bench``) as
``real-<n>.npy`` plus ``real-<n>.json`` for the texts: the first run embeds (minutes on
2 cores), later runs load. ``python real_corpus.py --size 100000`` builds it ahead.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = ROOT.parent / "shared" / "eval" / "locomo"
if not LOCOMO.exists():
    LOCOMO = Path("/work/shared/eval/locomo")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_WORDY = re.compile(r"^[A-Z][A-Za-z0-9 ,;:'\"()\-]+[a-z)][.!?]$")


def cache_dir() -> Path:
    path = Path(os.environ.get("MEMORYHUB_BENCH_CACHE", Path.home() / ".cache" / "memoryhub-bench"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def locomo_turns() -> list[str]:
    turns = []
    for path in sorted(LOCOMO.glob("*.json")):
        data = json.loads(path.read_text())
        conversation = data.get("conversation", data)
        for key, value in conversation.items():
            if key.startswith("session_") and isinstance(value, list):
                turns += [turn["text"] for turn in value if isinstance(turn, dict) and turn.get("text")]
    return turns


def generated_operations(count: int) -> list[str]:
    sys.path.insert(0, str(Path(__file__).parent))
    from common import synthetic_episode

    rng = random.Random(2026)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    return [synthetic_episode(rng, i, start)["content"] for i in range(count)]


def _sentences(text: str) -> list[str]:
    text = " ".join(text.split())
    return [s for s in _SENTENCE_END.split(text) if 40 <= len(s) <= 400 and len(s.split()) >= 6 and _WORDY.match(s)]


def package_prose(limit: int) -> list[str]:
    """Sentences from docstrings and doc files of installed packages (sorted walk: the same corpus every time)."""
    import site
    import sysconfig

    roots = [Path(p) for p in [*site.getsitepackages(), sysconfig.get_paths()["stdlib"]] if Path(p).exists()]
    found: list[str] = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if len(found) >= limit:
                return found
            try:
                if path.suffix == ".py" and path.stat().st_size < 2_000_000:
                    tree = ast.parse(path.read_text(errors="ignore"))
                    for node in ast.walk(tree):
                        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                            doc = ast.get_docstring(node)
                            if doc:
                                found += [s for part in doc.split("\n\n") for s in _sentences(part)]
                elif path.suffix in {".rst", ".md", ".txt"} and path.stat().st_size < 1_000_000:
                    found += _sentences(path.read_text(errors="ignore"))
            except (SyntaxError, ValueError, OSError, RecursionError):
                continue
    return found


def build_texts(size: int) -> list[str]:
    seen: set[str] = set()
    texts: list[str] = []
    for source in (locomo_turns(), generated_operations(min(30_000, size // 3)), package_prose(size * 3)):
        for text in source:
            if text not in seen:
                seen.add(text)
                texts.append(text)
    if len(texts) < size:
        raise SystemExit(f"only {len(texts)} distinct sentences found offline; asked for {size}")
    rng = random.Random(7)
    head = texts[: len(locomo_turns())]  # every LoCoMo turn stays
    rest = texts[len(head) :]
    rng.shuffle(rest)
    return head + rest[: size - len(head)]


def load(size: int) -> tuple[list[str], np.ndarray]:
    """(texts, unit vectors) of ``size`` real sentences, embedding them on the first call."""
    vectors_path, texts_path = cache_dir() / f"real-{size}.npy", cache_dir() / f"real-{size}.json"
    if vectors_path.exists() and texts_path.exists():
        return json.loads(texts_path.read_text()), np.load(vectors_path)
    from memoryhub.embeddings import embed_texts

    chosen = cache_dir() / f"texts-{size}.json"
    if not chosen.exists():  # the walk over the installed packages takes minutes: keep its outcome
        chosen.write_text(json.dumps(build_texts(size)))
    texts = json.loads(chosen.read_text())
    print(f"embedding {len(texts):,} real sentences once (cached in {cache_dir()})...", flush=True)
    vectors = np.concatenate([embed_texts(texts[i : i + 4096], batch_size=128) for i in range(0, len(texts), 4096)])
    np.save(vectors_path, vectors)
    texts_path.write_text(json.dumps(texts))
    return texts, vectors


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--count-only", action="store_true")
    args = parser.parse_args()
    if args.count_only:
        texts = build_texts(args.size)
        print(len(texts), texts[:3], texts[-3:])
        return
    sys.path.insert(0, str(Path(__file__).parent))
    from common import setup_django

    setup_django("memoryhub_bench_corpus")
    texts, vectors = load(args.size)
    print(f"{len(texts):,} sentences, vectors {vectors.shape}")


if __name__ == "__main__":
    main()
