"""Every code snippet in README.md runs, in order, against a live server.

Convention (also stated in the README):

- every fenced ``python`` and ``bash`` block is executed, top to bottom, each in its own
  process (python with this interpreter, bash with ``-euo pipefail``), in one scratch
  directory that holds ``.data/demo-api-key``; it must exit 0;
- ``http://127.0.0.1:8000`` in a block is the live server this test starts (on a free port);
  ``MEMORYHUB_URL``/``MEMORYHUB_API_KEY`` name it and the demo key, ``OPENAI_BASE_URL`` a
  local fake OpenAI-compatible server, and ``mhctl --db`` reaches the test database;
- a block that cannot run here (it would start the whole stack, or needs a Docker engine)
  is marked by the line right before it: ``<!-- snippet: skip (the reason) -->``;
- ``json`` blocks with ``mcpServers`` are MCP client configs: each server is started with
  its command and args and must list its tools. Other languages are shown, not run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from django.db import connection

from banks.services.api_keys import api_key_issue
from banks.services.banks import bank_create, tenant_create
from tests.integrations.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```\n", re.S | re.M)
SKIP = re.compile(r"<!-- snippet: skip \((.+?)\) -->\s*$")
README_URL = "http://127.0.0.1:8000"


def readme_blocks() -> list[tuple[int, str, str, str | None]]:
    """``(line, language, code, skip reason)`` for every fenced block."""
    text = README.read_text()
    blocks = []
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = SKIP.search(before)
        blocks.append((line, match.group(1), match.group(2), skip.group(1) if skip else None))
    return blocks


def test_the_convention_is_followed():
    blocks = readme_blocks()
    runnable = [b for b in blocks if b[1] in ("python", "bash") and b[3] is None]
    assert len(runnable) >= 5 and any("wrap_openai" in b[2] for b in runnable)
    for line, language, _, reason in blocks:
        if reason is not None:
            assert language in ("python", "bash") and len(reason) > 10, f"README.md:{line}: give the skip a reason"


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
        yield tmp_path, env, live_server.url, key, llm


def _run(language: str, code: str, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", code] if language == "python" else ["bash", "-euo", "pipefail", "-c", code]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=180)


def test_every_readme_snippet_runs_against_a_live_server(stage):
    cwd, env, url, key, llm = stage
    ran = 0
    for line, language, code, skip in readme_blocks():
        if skip is not None:
            continue
        if language in ("python", "bash"):
            result = _run(language, code.replace(README_URL, url), env, cwd)
            assert result.returncode == 0, f"README.md:{line} ({language}) failed:\n{result.stdout}\n{result.stderr}"
            ran += 1
        elif language == "json" and "mcpServers" in code:
            for name, server in json.loads(code)["mcpServers"].items():
                assert _mcp_tools(server, env) >= {"retain", "recall", "reflect"}, name
    assert ran >= 5
    assert llm.requests, "the wrap_openai snippet reached the chat server"
    assert (cwd / "ops.jsonl").exists()


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
