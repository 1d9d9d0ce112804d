"""Every code snippet in README.md and docs/**/*.md runs, file by file and in order, against a live server.

Convention (also stated in docs/development/testing.md):

- every fenced ``python`` and ``bash`` block of a file is executed, top to bottom, each in its
  own process (python with this interpreter, bash with ``-euo pipefail``), in one scratch
  directory per file that holds ``.data/demo-api-key``; it must exit 0;
- each file gets a fresh live server and database: a demo tenant with bank ``ops``, its
  admin key, ``MEMORYHUB_URL``/``MEMORYHUB_API_KEY`` naming them, ``OPENAI_BASE_URL`` a local
  fake OpenAI-compatible server; ``http://127.0.0.1:8000`` in a block is that live server,
  and ``mhctl --db`` reaches the test database;
- a block that cannot run here (it would start the whole stack, or needs a Docker engine)
  is marked by the line right before it: ``<!-- snippet: skip (the reason) -->``;
- ``json`` blocks with ``mcpServers`` are MCP client configs: each server is started with
  its command and args and must list its tools. Other languages are shown, not run.

After a file's blocks ran, :data:`CHECKS` looks at what they did (rows stored, files
written, chat calls made), so a snippet that exits 0 without doing its job still fails.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from django.db import connection

from banks.models import Bank, Tenant
from banks.services.api_keys import api_key_issue
from banks.services.banks import bank_create, tenant_create
from beliefs.models import Belief, Episode
from tests.helpers.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```\n", re.S | re.M)
SKIP = re.compile(r"<!-- snippet: skip \((.+?)\) -->\s*$")
DOC_URL = "http://127.0.0.1:8000"
RUNNABLE = ("python", "bash")


@dataclass(frozen=True)
class Block:
    line: int
    language: str
    code: str
    skip: str | None

    @property
    def runs(self) -> bool:
        return self.language in RUNNABLE and self.skip is None


def documents() -> list[Path]:
    """The README and every page of the docs site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path`` with its line and skip reason."""
    text = path.read_text()
    found = []
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = SKIP.search(before)
        found.append(Block(line, match.group(1), match.group(2), skip.group(1) if skip else None))
    return found


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _with_snippets() -> list[Path]:
    return [
        path
        for path in documents()
        if any(b.runs or (b.language == "json" and "mcpServers" in b.code) for b in blocks(path))
    ]


def test_the_convention_is_followed():
    every = {_name(path): blocks(path) for path in documents()}
    for name, found in every.items():
        for block in found:
            if block.skip is not None:
                where = f"{name}:{block.line}"
                assert block.language in RUNNABLE and len(block.skip) > 10, f"{where}: give the skip a reason"
    readme = [b for b in every["README.md"] if b.runs]
    assert any("/retain" in b.code and "/recall" in b.code for b in readme), "the README's retain + recall example runs"
    runnable = [b for found in every.values() for b in found if b.runs]
    assert len(runnable) >= 15 and any("wrap_openai" in b.code for b in runnable)
    assert set(CHECKS) <= set(every), "a check names a file that is gone"


@dataclass
class Stage:
    cwd: Path
    env: dict
    url: str
    llm: FakeOpenAI


@pytest.fixture
def stage(transactional_db, live_server, eager_tasks, tmp_path):
    """A demo tenant with bank ``ops``, its admin key in ``.data/demo-api-key``, and the environment."""
    tenant = tenant_create(slug="demo", name="Demo")
    bank_create(tenant=tenant, slug="ops", name="Operations")
    key = api_key_issue(tenant=tenant, name="demo key", scopes=["read", "write", "admin"]).raw_key
    (tmp_path / ".data").mkdir()
    (tmp_path / ".data/demo-api-key").write_text(key + "\n")
    with FakeOpenAI() as llm:
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            "MEMORYHUB_URL": live_server.url,
            "MEMORYHUB_API_KEY": key,
            "OPENAI_BASE_URL": llm.url,
            "OPENAI_API_KEY": "test",
            "MEMORYHUB_DB_NAME": connection.settings_dict["NAME"],
            "DJANGO_SETTINGS_MODULE": "memoryhub.settings",
            "EDITOR": "true",
        }
        yield Stage(tmp_path, env, live_server.url, llm)


def _run(language: str, code: str, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", code] if language == "python" else ["bash", "-euo", "pipefail", "-c", code]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=180)


@pytest.mark.parametrize("path", _with_snippets(), ids=_name)
def test_every_snippet_runs_against_a_live_server(stage, path):
    name = _name(path)
    printed = []
    for block in blocks(path):
        if block.skip is not None:
            continue
        if block.runs:
            result = _run(block.language, block.code.replace(DOC_URL, stage.url), stage.env, stage.cwd)
            where = f"{name}:{block.line} ({block.language})"
            assert result.returncode == 0, f"{where} failed:\n{result.stdout}\n{result.stderr}"
            printed.append(result.stdout)
        elif block.language == "json" and "mcpServers" in block.code:
            for server_name, server in json.loads(block.code)["mcpServers"].items():
                assert _mcp_tools(server, stage.env) >= {"retain", "recall", "reflect"}, f"{name}: {server_name}"
    check = CHECKS.get(name)
    if check is not None:
        check(stage, "\n".join(printed))


def _episodes(bank: str = "ops"):
    return Episode.objects.filter(bank__slug=bank, tenant__slug="demo")


def _printed_json(output: str) -> list[dict]:
    """Every JSON object the blocks printed (``curl`` prints answers back to back, without newlines)."""
    decoder, found, at = json.JSONDecoder(), [], output.find("{")
    while at != -1:
        try:
            value, end = decoder.raw_decode(output, at)
        except json.JSONDecodeError:
            at = output.find("{", at + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        at = output.find("{", end)
    return found


def _printed(output: str, key: str) -> dict:
    """The first printed JSON object that has ``key``."""
    found = next((value for value in _printed_json(output) if key in value), None)
    assert found is not None, f"nothing with {key!r} was printed:\n{output[:2000]}"
    return found


def _recall_json(output: str) -> dict:
    return _printed(output, "tokens_used")


def _check_readme(stage: Stage, output: str) -> None:
    assert _episodes().filter(content__contains="DiskLatencyHigh fired on db-01", subject="host:db-01").count() == 1
    answer = _recall_json(output)
    assert answer["tokens_used"] <= answer["budget_tokens"] == 300
    assert any("DiskLatencyHigh" in item["text"] and item["untrusted"] for item in answer["items"])
    assert "cleared after the backup finished" in output  # the Python example recalled what it retained


def _check_getting_started(stage: Stage, output: str) -> None:
    assert _printed(output, "checks")["status"] == "ok"
    assert any("CertificateExpiring" in item["text"] for item in _recall_json(output)["items"])


def _check_api(stage: Stage, output: str) -> None:
    assert _episodes().filter(content__startswith="Runbook: restart the replica").count() == 1  # replayed, not stored
    assert not _episodes().filter(content="Something else entirely.").exists()  # the 409 stored nothing
    page = _printed(output, "results")
    assert page["count"] == 1 and len(page["results"]) == 1 and page["results"][0]["source"] == "alert"


def _check_agents(stage: Stage, output: str) -> None:
    assert stage.llm.requests, "the wrap_openai snippet reached the chat server"
    assert (stage.cwd / "ops.jsonl").exists()
    assert Tenant.objects.filter(slug="acme").exists()
    assert Bank.objects.filter(tenant__slug="acme", slug="support").exists()
    copied = set(_episodes("ops-copy").values_list("content", flat=True))
    assert "Queued: the db-01 backup window moved to 03:00." in copied  # the export carried the async retain along
    assert not _episodes().filter(subject="user:dana").exists()  # erased at the end
    settings = json.loads((stage.cwd / ".claude" / "settings.json").read_text())  # the hooks snippet
    assert "mhctl hook user-prompt --tool claude-code --bank ops" in json.dumps(settings["hooks"]["UserPromptSubmit"])
    assert "«memory-recall»" in _printed(output, "hookSpecificOutput")["hookSpecificOutput"]["additionalContext"]
    prompt = "is disk latency on db-01 during the backup a known pattern?"
    assert _episodes().filter(source="claude-code", provenance="user", content=prompt).count() == 1


def _check_guarantees(stage: Stage, output: str) -> None:
    report = json.loads((stage.cwd / "probe.json").read_text())
    assert report["passed"] and {c["name"] for c in report["checks"]} >= {"isolation", "fence", "erasure", "budget"}
    assert not Bank.objects.filter(slug__startswith="mhprobe-").exists()


def _check_export_import(stage: Stage, output: str) -> None:
    assert (stage.cwd / "ops.jsonl").exists()
    assert _episodes("ops-archive").count() == _episodes().count() > 0


def _check_recall(stage: Stage, output: str) -> None:
    assert "Dana moved the db-02 backup" in output or "DiskLatencyHigh fired on db-02" in output


def _check_beliefs(stage: Stage, output: str) -> None:
    belief = Belief.objects.get(bank__slug="ops", predicate="depends_on")
    assert belief.proof_count == 3 and belief.status == Belief.Status.ACTIVE


def _check_governance(stage: Stage, output: str) -> None:
    assert not _episodes().filter(subject="user:dana").exists()
    assert "done" in output


def _check_memory_defense(stage: Stage, output: str) -> None:
    episode, planted = _episodes().order_by("id")  # the redaction example, then the planted instruction
    assert "AKIAZ7Q4M2XK9PLR5TWN" not in episode.content and "dana.ruiz@initech.io" not in episode.content
    assert "[REDACTED:aws_access_key_id]" in episode.content
    assert "memory_directive" in planted.injection_flags


CHECKS: dict[str, Callable[[Stage, str], None]] = {
    "README.md": _check_readme,
    "docs/getting-started.md": _check_getting_started,
    "docs/guide/api.md": _check_api,
    "docs/guide/agents.md": _check_agents,
    "docs/guide/export-import.md": _check_export_import,
    "docs/concepts/recall.md": _check_recall,
    "docs/concepts/beliefs.md": _check_beliefs,
    "docs/concepts/governance.md": _check_governance,
    "docs/concepts/memory-defense.md": _check_memory_defense,
    "docs/operations/guarantees.md": _check_guarantees,
}


def _mcp_tools(server: dict, env: dict) -> set[str]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server_env = {**env, **server.get("env", {}), "MEMORYHUB_URL": env["MEMORYHUB_URL"],
                  "MEMORYHUB_API_KEY": env["MEMORYHUB_API_KEY"]}  # fmt: skip
    params = StdioServerParameters(command=server["command"], args=server["args"], env=server_env)

    async def run():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return {tool.name for tool in (await session.list_tools()).tools}

    return anyio.run(run)
