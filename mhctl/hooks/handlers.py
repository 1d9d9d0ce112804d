"""What each hook event does, shared by both ways in: the click commands and the fast entry (``mhctl.entry``).

Every event reads the tool's payload and answers with the text to print; none raises on a
bad payload or an unreachable service (a hook must never fail the agent).
"""

from __future__ import annotations

import os
import subprocess
import sys

from mhctl.hooks import items, spool
from mhctl.hooks.fastpath import recall_context
from mhctl.hooks.payloads import context_answer, parse, quiet_answer

DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_BUDGET = {"session-start": 800, "user-prompt": 400}
DEFAULT_TIMEOUT = 2.0
EVENTS = ("session-start", "user-prompt", "post-tool", "stop")


def connection(url: str | None, key: str | None) -> tuple[str, str | None]:
    """The service URL and key: given ones first, then ``MEMORYHUB_URL`` / ``MEMORYHUB_API_KEY``."""
    return (url or os.environ.get("MEMORYHUB_URL") or DEFAULT_URL).rstrip("/"), key or os.environ.get(
        "MEMORYHUB_API_KEY"
    )


def run_event(
    event: str,
    raw: str,
    *,
    tool: str | None,
    bank: str,
    url: str | None = None,
    key: str | None = None,
    budget: int | None = None,
    timeout: float | None = None,
    query: str | None = None,
    no_flush: bool = False,
) -> str:
    """Handle one hook call; returns what to print on stdout ('' for nothing)."""
    url, key = connection(url, key)
    hook = parse(raw, tool)
    budget = budget or DEFAULT_BUDGET.get(event, 0)
    timeout = timeout or DEFAULT_TIMEOUT
    if event == "session-start":
        query = query or f"{hook.project}: decisions, conventions, open problems and recent work"
        context = recall_context(url=url, key=key, bank=bank, query=query, budget=budget, timeout=timeout)
        if spool.pending_exists():
            start_flush(url, key)  # items left from a time the service was down
        return context_answer(hook, event, context)
    if event == "user-prompt":
        context = ""
        if hook.tool != "cursor":  # Cursor's beforeSubmitPrompt cannot add context; its sessionStart does
            context = recall_context(url=url, key=key, bank=bank, query=hook.prompt, budget=budget, timeout=timeout)
        _spool(bank, items.prompt_item(hook))
        return context_answer(hook, event, context)
    if event == "post-tool":
        _spool(bank, items.tool_item(hook))
        return quiet_answer(hook)
    if event == "stop":
        if _spool(bank, items.response_item(hook)) and not no_flush:
            start_flush(url, key)
        return quiet_answer(hook)
    raise ValueError(f"unknown hook event {event!r}")


def _spool(bank: str, item: dict | None) -> bool:
    if not bank or item is None:
        return False
    spool.append([{"bank": bank, "item": item}])
    return True


def start_flush(url: str, key: str | None) -> None:
    """A flush in its own session, so the agent never waits for it (nor for the service)."""
    env = {**os.environ, "MEMORYHUB_URL": url}
    if key:
        env["MEMORYHUB_API_KEY"] = key
    subprocess.Popen(
        [sys.executable, "-m", "mhctl.main", "hook", "flush", "--if-idle"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True, env=env,
    )  # fmt: skip
