"""The hook fast path: one recall request over a plain socket, the fenced rendering back.

A hook runs as a fresh process before every prompt, so its start-up is part of the
agent's wait. Over ``http://`` this module needs only ``socket`` and ``json`` (``http.client``
pulls in the e-mail parser, about 25 ms; the Python client httpx and pydantic, about
0.5 s); ``https://`` goes through ``http.client`` with TLS. ``benchmarks/bench_hooks.py``
measures the whole hook, process start to exit. Any failure answers "no context": the
agent goes on without memory.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from urllib.parse import quote, urlsplit

MAX_QUERY_CHARS = 2000
_MAX_ANSWER_BYTES = 4 * 1024 * 1024


def recall_context(*, url: str, key: str | None, bank: str, query: str, budget: int, timeout: float) -> str:
    """The bank's fenced, untrusted-marked context for ``query`` within ``budget`` tokens, or '' on any failure."""
    query = query.strip()[:MAX_QUERY_CHARS]
    if not query or not bank:
        return ""
    body = json.dumps({"query": query, "budget_tokens": budget, "render": "prompt"}).encode()
    try:
        status, answer = post(url, f"/api/v1/banks/{quote(bank, safe='')}/recall", body, key, timeout)
    except (OSError, ValueError) as exc:
        print(f"mhctl hook: MemoryHub not reachable ({type(exc).__name__}); no memory added", file=sys.stderr)
        return ""
    if status != 200:
        code = answer.get("code", status) if isinstance(answer, dict) else status
        print(f"mhctl hook: recall answered {status} ({code}); no memory added", file=sys.stderr)
        return ""
    prompt = answer.get("prompt") or {}
    return prompt.get("text", "") if prompt.get("items") else ""


def post(url: str, path: str, body: bytes, key: str | None, timeout: float) -> tuple[int, object]:
    """POST JSON; (status, parsed answer). Raises OSError (network, timeout) or ValueError (not HTTP)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/") + path
    headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "mhctl-hook"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    if parts.scheme == "https":
        return _post_tls(parts, path, body, headers, timeout)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    request = (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n{head}Content-Length: {len(body)}\r\n"
               "Connection: close\r\n\r\n").encode() + body  # fmt: skip
    deadline = time.monotonic() + timeout
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(request)
        chunks, size = [], 0
        while True:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
            size += len(data)
            if size > _MAX_ANSWER_BYTES:
                raise ValueError("answer too large")
    return _parse(b"".join(chunks))


def _parse(raw: bytes) -> tuple[int, object]:
    head, _, payload = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split(" ", 2)[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in header_lines)}
    if headers.get("transfer-encoding", "").lower() == "chunked":
        payload = _unchunk(payload)
    try:
        return status, json.loads(payload or b"{}")
    except ValueError:
        return status, {}


def _unchunk(payload: bytes) -> bytes:
    out, at = [], 0
    while True:
        end = payload.index(b"\r\n", at)
        size = int(payload[at:end].split(b";")[0], 16)
        if size == 0:
            return b"".join(out)
        out.append(payload[end + 2 : end + 2 + size])
        at = end + 2 + size + 2


def _post_tls(parts, path: str, body: bytes, headers: dict, timeout: float) -> tuple[int, object]:
    import http.client

    connection = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        raw = response.read()
    finally:
        connection.close()
    try:
        return response.status, json.loads(raw or b"{}")
    except ValueError:
        return response.status, {}
