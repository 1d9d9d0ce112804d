"""Pinned SQL query counts per route (``tests/query_counts.json``), measured at two data sizes.

A list or page that runs one query per row costs more queries with more rows; the tests measure
every route with ``SMALL`` (2) and then ``LARGE`` (20) rows of everything (``tests.helpers.populate``), require the same
count at both sizes, and compare it with the pinned one. After a deliberate change, regenerate
the pins with ``pytest --update-query-counts tests/banks/api/test_query_counts.py
tests/web/test_page_query_counts.py`` and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.db import connection
from django.test.utils import CaptureQueriesContext

PATH = Path(__file__).resolve().parent.parent / "query_counts.json"
OPTION = "--update-query-counts"
SMALL, LARGE = 2, 20


def pinned(section: str) -> dict[str, int]:
    return json.loads(PATH.read_text()).get(section, {}) if PATH.exists() else {}


def pin(section: str, counts: dict[str, int]) -> None:
    data = json.loads(PATH.read_text()) if PATH.exists() else {}
    data[section] = dict(sorted(counts.items()))
    PATH.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def count_queries(call) -> int:
    """How many SQL statements ``call()`` runs (a streamed response is read whole inside the count)."""
    with CaptureQueriesContext(connection) as queries:
        response = call()
        if getattr(response, "streaming", False):
            b"".join(response.streaming_content)
    assert response.status_code == 200, (response.status_code, getattr(response, "content", b"")[:300])
    return len(queries)


def compare(section: str, small: dict[str, int], large: dict[str, int], *, update: bool) -> None:
    """Fail on any route whose count grew with the data, then on any that differs from its pin (or pin them)."""
    grew = {key: (small[key], large[key]) for key in small if small[key] != large[key]}
    assert not grew, f"query count grows with the rows (N+1), {SMALL} rows vs {LARGE}: {grew}"
    if update:
        pin(section, large)
        return
    expected = pinned(section)
    differ = {key: {"pinned": expected.get(key), "now": count} for key, count in large.items()
              if expected.get(key) != count}  # fmt: skip
    assert not differ, f"query counts differ from {PATH.name} (after a deliberate change: pytest {OPTION}): {differ}"
