"""A local spool of items to retain: appended by hooks, sent by a flush, replayed until stored.

Hooks never wait for the service. They append items (each with its idempotency key) to
``spool.jsonl`` under the state directory and start a background flush. A flush renames
the spool to ``sending.jsonl``, retains its items in batches and puts back what could not
be sent; a crash leaves ``sending.jsonl`` behind and the next flush sends it again. The
server stores an item once per idempotency key, so a replay never stores twice.

Locks (``fcntl.flock``): appenders hold ``spool.lock`` shared while they write one line, the
flush holds it exclusively only to rename the file, so no line is written into a file the
flush already read. ``flush.lock`` lets one flush run at a time.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

BATCH_ITEMS = 100


def state_dir() -> Path:
    """``$MHCTL_STATE_DIR``, else ``$XDG_STATE_HOME/mhctl``, else ``~/.local/state/mhctl`` (created 0700)."""
    explicit = os.environ.get("MHCTL_STATE_DIR")
    if explicit:
        path = Path(explicit)
    else:
        base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
        path = Path(base) / "mhctl"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


@contextmanager
def _locked(path: Path, mode: int, *, blocking: bool = True) -> Iterator[bool]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, mode | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _append_lines(path: Path, lines: list[str]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, "".join(line + "\n" for line in lines).encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def append(entries: list[dict], *, directory: Path | None = None) -> None:
    """Add entries (``{"bank", "item"}``, the item with its ``idempotency_key``) to the spool, durably."""
    if not entries:
        return
    directory = directory or state_dir()
    with _locked(directory / "spool.lock", fcntl.LOCK_SH):
        _append_lines(directory / "spool.jsonl", [json.dumps(e, ensure_ascii=False) for e in entries])


def pending_exists(*, directory: Path | None = None) -> bool:
    """Cheap: is anything waiting to be sent?"""
    directory = directory or state_dir()
    paths = (directory / "sending.jsonl", directory / "spool.jsonl")
    return any(path.exists() and path.stat().st_size for path in paths)


def pending(*, directory: Path | None = None) -> list[dict]:
    """Every entry not yet stored (the spool and an interrupted flush's file)."""
    directory = directory or state_dir()
    return [entry for name in ("sending.jsonl", "spool.jsonl") for entry in _read(directory / name)]


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:
            continue  # a line cut short by a crash mid-write: its item was never acknowledged to anyone
    return entries


class Rejected(Exception):
    """The service refused these items for good (invalid, or blocked by Memory Defense): do not retry them."""


class Unavailable(Exception):
    """The service could not take the items now (down, rate limited, not authorised yet): retry later."""


class FlushReport:
    """What one flush did (a plain class: hooks import this module, and dataclasses are slow to import)."""

    def __init__(self):
        self.sent = self.created = self.left = self.rejected = 0
        self.busy = False
        self.errors: list[str] = []


def flush(
    send: Callable[[str, list[dict]], int], *, directory: Path | None = None, blocking: bool = True
) -> FlushReport:
    """Send every pending entry with ``send(bank, items) -> created``; put back what could not be sent.

    ``send`` raises :class:`Unavailable` (kept for later) or :class:`Rejected` (an invalid
    batch: its items are tried one by one, and those refused go to ``rejected.jsonl``).
    """
    directory = directory or state_dir()
    report = FlushReport()
    with _locked(directory / "flush.lock", fcntl.LOCK_EX, blocking=blocking) as acquired:
        if not acquired:
            report.busy = True
            return report
        sending = directory / "sending.jsonl"
        if not sending.exists():
            with _locked(directory / "spool.lock", fcntl.LOCK_EX):
                spool = directory / "spool.jsonl"
                if spool.exists():
                    spool.rename(sending)
        entries = _read(sending)
        unsent = _send_all(entries, send, directory, report)
        if unsent:
            with _locked(directory / "spool.lock", fcntl.LOCK_SH):
                _append_lines(directory / "spool.jsonl", [json.dumps(e, ensure_ascii=False) for e in unsent])
        sending.unlink(missing_ok=True)
        report.left = len(unsent)
    return report


def _send_all(entries: list[dict], send, directory: Path, report: FlushReport) -> list[dict]:
    by_bank: dict[str, list[dict]] = {}
    for entry in entries:
        by_bank.setdefault(entry["bank"], []).append(entry)
    unsent: list[dict] = []
    for bank, bank_entries in by_bank.items():
        for start in range(0, len(bank_entries), BATCH_ITEMS):
            batch = bank_entries[start : start + BATCH_ITEMS]
            try:
                report.created += send(bank, [e["item"] for e in batch])
                report.sent += len(batch)
            except Unavailable as exc:
                report.errors.append(str(exc))
                unsent.extend(bank_entries[start:])
                break
            except Rejected:
                unsent.extend(_send_one_by_one(bank, batch, send, directory, report))
    return unsent


def _send_one_by_one(bank: str, batch: list[dict], send, directory: Path, report: FlushReport) -> list[dict]:
    unsent = []
    for index, entry in enumerate(batch):
        try:
            report.created += send(bank, [entry["item"]])
            report.sent += 1
        except Unavailable as exc:
            report.errors.append(str(exc))
            return unsent + batch[index:]
        except Rejected as exc:
            report.rejected += 1
            report.errors.append(str(exc))
            _append_lines(directory / "rejected.jsonl", [json.dumps({**entry, "error": str(exc)}, ensure_ascii=False)])
    return unsent
