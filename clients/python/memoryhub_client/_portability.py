"""Export a bank to JSON lines and import files back, in chunks with progress.

Import sends ``batch_lines`` lines per request; each request is one all-or-nothing
batch on the server, so a bad line stops the import with ``ImportLineInvalid`` naming
its line in the *file* (``extra["line"]``), after the earlier batches were stored. The
server matches records by natural keys: running the same import again after fixing
the line stores only what is missing.

A MemoryHub export's header line is sent again at the top of every chunk (it says which
embedding model the vectors come from); ``line_offset`` keeps the reported numbers true.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from memoryhub_client._transport import Call

NDJSON = "application/x-ndjson"
Progress = Callable[[int, dict], Any]


def _as_bytes(line: str | bytes | dict) -> bytes:
    if isinstance(line, dict):
        return json.dumps(line, ensure_ascii=False).encode()
    if isinstance(line, str):
        return line.encode()
    return line


def _is_header(line: bytes) -> bool:
    return line.lstrip().startswith(b"{") and b'"header"' in line[:200] and json.loads(line).get("type") == "header"


#: A request carries at most this many bytes of lines (the server caps a request without the admin scope at 64 MiB).
BATCH_BYTES = 8 * 1024 * 1024


def chunks(
    lines: Iterable[str | bytes | dict], *, batch_lines: int, format: str, batch_bytes: int = BATCH_BYTES
) -> Iterator[tuple[int, bytes, int]]:
    """``(line_offset, body, line_count)`` per request; line numbers are the file's, from 1."""
    header: bytes | None = None
    current: list[bytes] = []
    size = 0
    first_line = 1
    number = 0
    for number, raw in enumerate(lines, start=1):
        line = _as_bytes(raw).rstrip(b"\r\n")
        if number == 1 and format == "memoryhub" and line.strip() and _is_header(line):
            header = line
            first_line = 2
            continue
        current.append(line)
        size += len(line) + 1
        if len(current) >= batch_lines or size >= batch_bytes:
            yield _chunk(header, current, first_line)
            first_line = number + 1
            current, size = [], 0
    if current or (header is not None and number == 1):
        yield _chunk(header, current, first_line)


def _chunk(header: bytes | None, lines: list[bytes], first_line: int) -> tuple[int, bytes, int]:
    if header is None:
        return first_line - 1, b"\n".join(lines) + b"\n", len(lines)
    # The header occupies body line 1; the first record must be reported as file line ``first_line``.
    return first_line - 2, b"\n".join([header, *lines]) + b"\n", len(lines) + (1 if first_line == 2 else 0)


def file_lines(path: str | Path, format: str) -> Iterator[bytes]:
    """The lines of an export file; a mem0 JSON document (``{"results": [...]}`` or a list) as one memory per line."""
    path = Path(path)
    with path.open("rb") as handle:
        start = handle.read(64).lstrip()
        handle.seek(0)
        if format == "mem0" and start[:1] in (b"[", b"{") and not _looks_like_jsonl(path):
            document = json.load(handle)
            memories = document.get("results", document.get("memories", [])) if isinstance(document, dict) else document
            for memory in memories:
                yield json.dumps(memory, ensure_ascii=False).encode()
            return
        yield from handle


def _looks_like_jsonl(path: Path) -> bool:
    with path.open("rb") as handle:
        first = handle.readline()
    try:
        value = json.loads(first)
    except ValueError:
        return False
    return isinstance(value, dict) and ("memory" in value or "type" in value or "content" in value)


def _import_call(
    bank: str, body: bytes, offset: int, *, format: str, batch_size: int, apply_settings: bool, trust_file: bool
) -> Call:
    from memoryhub_client._resources import _bank_path

    params = {
        "source_format": format,
        "line_offset": offset,
        "batch_size": batch_size,
        "apply_settings": apply_settings,
    }
    if trust_file:
        params["trust_file"] = True
    return Call(
        "POST",
        _bank_path(bank, "import"),
        params=params,
        content=body,
        headers={"Content-Type": NDJSON},
        safe_to_repeat=True,
    )


def _add(totals: dict, answer: dict) -> None:
    for key in ("lines", "records", "batches"):
        totals[key] = totals.get(key, 0) + answer.get(key, 0)
    for key in ("created", "duplicates", "redacted", "held_back"):
        counter = Counter(totals.get(key, {}))
        counter.update(answer.get(key, {}))
        totals[key] = dict(sorted(counter.items()))
    totals["settings_applied"] = totals.get("settings_applied", False) or answer.get("settings_applied", False)
    totals["extraction_queued"] = totals.get("extraction_queued", False) or answer.get("extraction_queued", False)
    totals["trusted"] = answer.get("trusted", totals.get("trusted", False))


class Portability:
    def __init__(self, client):
        self._client = client

    def export_lines(self, bank: str, *, embeddings: bool = True) -> Iterator[str]:
        """The bank's records as JSON lines, streamed (header first)."""
        from memoryhub_client._resources import _bank_path

        call = Call("GET", _bank_path(bank, "export"), params={"embeddings": embeddings})
        yield from self._client._transport.stream_lines(call)

    def export_to(self, bank: str, target: str | Path | IO[str], *, embeddings: bool = True) -> int:
        """Write the export to a path or text file; returns the number of lines."""
        handle = open(target, "w", encoding="utf-8") if isinstance(target, (str, Path)) else target
        count = 0
        try:
            for line in self.export_lines(bank, embeddings=embeddings):
                if line:
                    handle.write(line + "\n")
                    count += 1
        finally:
            if isinstance(target, (str, Path)):
                handle.close()
        return count

    def import_lines(
        self,
        bank: str,
        lines: Iterable[str | bytes | dict],
        *,
        format: str = "memoryhub",
        batch_lines: int = 1000,
        apply_settings: bool = False,
        trust_file: bool = False,
        progress: Progress | None = None,
    ) -> dict:
        """Import ``lines`` (records, retain items or mem0 memories) and return the summed counts.

        The server treats the file as untrusted: beliefs and other derived records are recomputed from
        the episodes, review decisions and plays wait for a person. ``trust_file=True`` (admin key only,
        audited) takes them from the file as they are, as when moving a bank you exported.
        """
        totals: dict = {"format": format}
        done = 0
        for offset, body, count in chunks(lines, batch_lines=batch_lines, format=format):
            call = _import_call(
                bank, body, offset, format=format, batch_size=batch_lines + 1, apply_settings=apply_settings,
                trust_file=trust_file,
            )  # fmt: skip
            _add(totals, self._client._transport.execute(call))
            done += count
            if progress is not None:
                progress(done, totals)
        return totals

    def import_file(self, bank: str, path: str | Path, *, format: str = "memoryhub", **options) -> dict:
        return self.import_lines(bank, file_lines(path, format), format=format, **options)


# Sync/async twin of ``Portability``: same code but for ``await`` (as in httpx, openai-python); kept apart on purpose.
class AsyncPortability:
    def __init__(self, client):
        self._client = client

    async def export_lines(self, bank: str, *, embeddings: bool = True) -> AsyncIterator[str]:
        from memoryhub_client._resources import _bank_path

        call = Call("GET", _bank_path(bank, "export"), params={"embeddings": embeddings})
        async for line in self._client._transport.stream_lines(call):
            yield line

    async def import_lines(
        self,
        bank: str,
        lines: Iterable[str | bytes | dict],
        *,
        format: str = "memoryhub",
        batch_lines: int = 1000,
        apply_settings: bool = False,
        trust_file: bool = False,
        progress: Progress | None = None,
    ) -> dict:
        totals: dict = {"format": format}
        done = 0
        for offset, body, count in chunks(lines, batch_lines=batch_lines, format=format):
            call = _import_call(
                bank, body, offset, format=format, batch_size=batch_lines + 1, apply_settings=apply_settings,
                trust_file=trust_file,
            )  # fmt: skip
            _add(totals, await self._client._transport.execute(call))
            done += count
            if progress is not None:
                progress(done, totals)
        return totals

    async def import_file(self, bank: str, path: str | Path, *, format: str = "memoryhub", **options) -> dict:
        return await self.import_lines(bank, file_lines(path, format), format=format, **options)
