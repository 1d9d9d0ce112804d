"""The hook fast path: one recall request with the standard library, the fenced rendering back.

A hook runs as a fresh process before every prompt, so its start-up is part of the
agent's wait. This module imports only ``http.client`` and ``json`` (the Python client pulls
in httpx and pydantic: about 0.5 s more per prompt); ``benchmarks/bench_hooks.py`` measures
the whole hook, process start to exit. Any failure answers "no context": the agent goes on.
"""

from __future__ import annotations

import http.client
import json
import sys
from urllib.parse import quote, urlsplit

MAX_QUERY_CHARS = 2000


def recall_context(*, url: str, key: str | None, bank: str, query: str, budget: int, timeout: float) -> str:
    """The bank's fenced, untrusted-marked context for ``query`` within ``budget`` tokens, or '' on any failure."""
    query = query.strip()[:MAX_QUERY_CHARS]
    if not query or not bank:
        return ""
    body = json.dumps({"query": query, "budget_tokens": budget, "render": "prompt"})
    try:
        status, answer = _post(url, f"/api/v1/banks/{quote(bank, safe='')}/recall", body, key, timeout)
    except (OSError, http.client.HTTPException) as exc:
        print(f"mhctl hook: MemoryHub not reachable ({type(exc).__name__}); no memory added", file=sys.stderr)
        return ""
    if status != 200:
        code = answer.get("code", status) if isinstance(answer, dict) else status
        print(f"mhctl hook: recall answered {status} ({code}); no memory added", file=sys.stderr)
        return ""
    prompt = answer.get("prompt") or {}
    return prompt.get("text", "") if prompt.get("items") else ""


def _post(url: str, path: str, body: str, key: str | None, timeout: float) -> tuple[int, object]:
    parts = urlsplit(url)
    connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = connection_class(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "mhctl-hook"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        connection.request("POST", parts.path.rstrip("/") + path, body=body.encode(), headers=headers)
        response = connection.getresponse()
        raw = response.read()
    finally:
        connection.close()
    try:
        return response.status, json.loads(raw or b"{}")
    except ValueError:
        return response.status, {}
