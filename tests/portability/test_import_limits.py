"""Import memory stays bounded and imported episodes meet retain's limits (SECURITY-2026-12 M3).

Memory is checked by behaviour, never by timing: how many bytes the server reads before it
refuses, where a batch is cut, and that a refused request stores nothing.
"""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from beliefs.models import Episode
from memoryhub.exceptions import ImportTooLarge
from portability.services import importing
from portability.services.importing import MAX_BATCH_BYTES, MAX_LINE_BYTES, bank_import, request_lines
from tests.portability.helpers import body, post_import, writer_of

pytestmark = pytest.mark.django_db
LIMITS = settings.MEMORYHUB


class EndlessBody:
    """A request body with no newline that never ends; counts what the server reads from it."""

    def __init__(self):
        self.read = 0

    def readline(self, size=-1):
        if size is None or size < 0:
            raise AssertionError("an unbounded readline would hold the whole body in memory")
        self.read += size
        return b"a" * size


def test_a_line_is_read_with_a_bounded_readline_and_refused_past_the_limit(caller):
    stream = EndlessBody()
    with pytest.raises(ImportTooLarge) as refused:
        bank_import(bank=caller.bank, lines=request_lines(stream, content_length=3 * 10**9, max_body_bytes=None))
    assert stream.read == MAX_LINE_BYTES + 1  # one bounded read, then the refusal: never the 3 GB
    assert refused.value.extra["limit"] == "line" and refused.value.extra["line"] == 1


def test_an_oversized_line_is_413_and_stores_nothing(caller):
    line = b'{"content": "' + b"a" * (MAX_LINE_BYTES + 100) + b'"}'
    response = post_import(writer_of(caller.bank), body({"content": "fine"}, line), source_format="jsonl")
    assert response.status_code == 413 and response.json()["code"] == "import_too_large"
    assert response.json()["extra"]["limit"] == "line" and response.json()["extra"]["line"] == 2
    assert not Episode.objects.filter(bank=caller.bank).exists()  # line 1's batch was never written


def test_a_batch_is_bounded_in_bytes_not_only_in_lines(caller):
    """The review's variant: many lines of 4,000,000 characters with batch_size=5000."""
    line = json.dumps({"content": "a" * 4_000_000})
    per_batch = MAX_BATCH_BYTES // (len(line) + 1)
    response = post_import(writer_of(caller.bank), body(*[line] * (per_batch + 1)), source_format="jsonl",
                           batch_size=5000)  # fmt: skip
    assert response.status_code == 400 and response.json()["code"] == "import_line_invalid"
    assert response.json()["extra"]["batch"] == {"first_line": 1, "last_line": per_batch}  # cut by bytes
    assert response.json()["extra"]["field"] == "content"  # retain's content limit applies too
    assert not Episode.objects.filter(bank=caller.bank).exists()


def test_batches_are_cut_by_bytes_and_each_is_stored_whole(caller, monkeypatch):
    monkeypatch.setattr(importing, "MAX_BATCH_BYTES", 2000)
    lines = [{"content": f"note {n} " + "x" * 450} for n in range(10)]
    response = post_import(writer_of(caller.bank), body(*lines), source_format="jsonl", batch_size=5000)
    assert response.status_code == 200 and response.json()["batches"] == 3  # 4 + 4 + 2 lines of ~470 bytes
    assert response.json()["created"] == {"episode": 10}


def test_without_the_admin_scope_the_body_is_capped(caller, monkeypatch):
    monkeypatch.setattr(importing, "MAX_BODY_BYTES", 1000)
    data = body(*[{"content": f"note {n} " + "x" * 100} for n in range(10)])
    response = post_import(writer_of(caller.bank), data, source_format="jsonl")
    assert response.status_code == 413 and response.json()["extra"]["limit"] == "body"
    assert not Episode.objects.filter(bank=caller.bank).exists()
    admin = post_import(caller, data, source_format="jsonl")  # an admin moves large files
    assert admin.status_code == 200 and admin.json()["created"] == {"episode": 10}


def test_a_body_without_a_declared_length_is_counted_as_it_is_read(caller):
    lines = [json.dumps({"content": f"note {n}"}).encode() + b"\n" for n in range(10)]
    with pytest.raises(ImportTooLarge) as refused:
        bank_import(bank=caller.bank, lines=lines, format="jsonl", batch_size=2, max_body_bytes=60)
    assert refused.value.extra["limit"] == "body" and refused.value.extra["stored"]["created"] == {"episode": 2}


@pytest.mark.parametrize("source_format", ["jsonl", "memoryhub", "mem0"])
@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"content": "x" * (LIMITS["MAX_CONTENT_CHARS"] + 1)}, "content"),
        ({"content": "   "}, "content"),
        ({"metadata": {"blob": "x" * LIMITS["MAX_METADATA_BYTES"]}}, "metadata"),
        ({"metadata": {"event": "dismissal"}}, "metadata"),
    ],
)
def test_imported_episodes_meet_retains_limits(caller, source_format, change, field):
    item = {"content": "Disk latency on db-01 during backups is expected.", **change}
    if source_format == "memoryhub":
        item = {"type": "episode", "ref": "key:x", "occurred_at": "2026-12-01T00:00:00Z",
                "recorded_at": "2026-12-01T00:00:00Z", **item}  # fmt: skip
    elif source_format == "mem0":
        item = {"id": "m-1", "memory": item.pop("content"), **item}
    response = post_import(writer_of(caller.bank), body(item), source_format=source_format)
    assert response.status_code == 400 and response.json()["code"] == "import_line_invalid", response.content
    assert response.json()["extra"]["field"] == field and not Episode.objects.filter(bank=caller.bank).exists()
