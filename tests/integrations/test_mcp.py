"""The MCP server, driven by the SDK's own client over stdio and streamable HTTP, against a live MemoryHub."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from beliefs.services.mental_models import mental_model_create, mental_model_refresh
from tests.beliefs.consolidation_helpers import T0, days, dismissal, remember
from tests.conftest import make_caller

TOOLS = {"retain", "recall", "reflect", "list_beliefs", "get_belief", "mental_model"}


@pytest.fixture
def served_bank(transactional_db, live_server):
    caller = make_caller()
    remember(caller.bank, [dismissal("DiskLatencyHigh", "db-1", T0 + days(n)) for n in range(3)])
    mental_model_create(bank=caller.bank, name="benign", question="which alerts are benign?")
    mental_model_refresh(bank=caller.bank, name="benign")
    env = {**os.environ, "MEMORYHUB_URL": live_server.url, "MEMORYHUB_API_KEY": caller.raw_key}
    return caller, env


def _text(result) -> str:
    assert not result.is_error, result.content
    return "".join(part.text for part in result.content if part.type == "text")


async def _exercise(session: ClientSession) -> dict:
    await session.initialize()
    names = {tool.name for tool in (await session.list_tools()).tools}
    stored = json.loads(_text(await session.call_tool("retain", {"content": "The db-1 backup moved to 03:00.",
                                                                 "subject": "host:db-1"})))  # fmt: skip
    recalled = _text(await session.call_tool("recall", {"query": "db-1 backup time", "budget_tokens": 120}))
    beliefs = json.loads(_text(await session.call_tool("list_beliefs", {"status": "active"})))["beliefs"]
    belief = json.loads(_text(await session.call_tool("get_belief", {"belief_id": beliefs[0]["id"]})))
    model = json.loads(_text(await session.call_tool("mental_model", {"name": "benign"})))
    reflected = json.loads(
        _text(await session.call_tool("reflect", {"question": "is DiskLatencyHigh on db-1 benign?"}))
    )
    missing = await session.call_tool("get_belief", {"belief_id": 10**9})
    return locals()


def _check(seen: dict) -> None:
    assert TOOLS <= seen["names"]
    assert seen["stored"]["status"] == "created"
    assert "db-1 backup moved to 03:00" in seen["recalled"] and "untrusted" in seen["recalled"].lower()
    assert seen["beliefs"][0]["statement"] == "alert DiskLatencyHigh on db-1 is benign"
    assert seen["belief"]["proof_count"] == 3 and len(seen["belief"]["evidence"]) == 3
    assert seen["model"]["status"] == "answered" and "DiskLatencyHigh" in seen["model"]["answer"]
    assert seen["reflected"]["supported"] is True
    assert seen["missing"].is_error and "belief_not_found" in seen["missing"].content[0].text


def test_stdio_transport(served_bank):
    caller, env = served_bank
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memoryhub_client.mcp_server", "--bank", caller.bank.slug], env=env
    )

    async def run():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return await _exercise(session)

    _check(anyio.run(run))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_transport_and_its_host_allowlist(served_bank):
    caller, env = served_bank
    port = _free_port()
    command = [sys.executable, "-m", "memoryhub_client.mcp_server", "--bank", caller.bank.slug,
               "--transport", "http", "--port", str(port), "--allowed-host", "memory.internal:*"]  # fmt: skip
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)

        async def run():
            async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
                return await _exercise(session)

        _check(anyio.run(run))
        probe = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        foreign = httpx.post(url, json=probe, headers={**headers, "Host": "evil.example:80"}, timeout=5)
        assert foreign.status_code == 421  # DNS-rebinding protection: unknown Host
        allowed = httpx.post(url, json=probe, headers={**headers, "Host": f"memory.internal:{port}"}, timeout=5)
        assert allowed.status_code != 421
    finally:
        process.terminate()
        process.wait(timeout=10)
