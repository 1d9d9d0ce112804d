"""Benign training texts for the injection classifier from the chatterbot-corpus wheel (BSD-3-Clause).

Its English conversations are small talk between people and a chat bot (greetings, feelings, food, sport,
films, gossip, jokes): friendly, exclamatory and addressed to "you", which a classifier trained on jailbreaks
alone reads as an attack. Each conversation is one text, its lines joined as turns.
Neither the held-apart corpus nor the fresh draw uses it.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import yaml


def chatterbot_samples(wheel: Path) -> list[tuple[str, str]]:
    """Negatives as (source, text): every English conversation of the corpus."""
    out = []
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(zf.namelist()):
            if not (name.startswith("chatterbot_corpus/data/english/") and name.endswith(".yml")):
                continue
            data = yaml.safe_load(zf.read(name).decode("utf-8")) or {}
            for conversation in data.get("conversations") or []:
                lines = [str(line).strip() for line in conversation if str(line).strip()]
                if lines:
                    out.append(("chatterbot:english", "\n".join(lines)))
    return out
