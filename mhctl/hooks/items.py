"""Retain items made from hook payloads: the prompt, the reply, a tool's outcome.

Every item carries an idempotency key fixed when it is spooled, so however often a flush
replays it the bank stores it once. With a turn id (Codex, Cursor) the key is the same
for the same turn; Claude Code has none, so the spooling time goes into the key.
"""

from __future__ import annotations

import hashlib
import json
import time
from datetime import UTC, datetime

from mhctl.hooks.payloads import HookInput

MAX_CONTENT_CHARS = 8000
_TOOL_INPUT_CHARS = 600
_TOOL_OUTPUT_CHARS = 2000


def _key(hook: HookInput, role: str, content: str) -> str:
    moment = "" if hook.turn else repr(time.time_ns())
    digest = hashlib.sha256("\x1f".join([hook.tool, hook.session, hook.turn, role, content, moment]).encode())
    return f"hook:{digest.hexdigest()[:40]}"


def _item(hook: HookInput, *, role: str, content: str, provenance: str, **metadata) -> dict:
    content = content.strip()[:MAX_CONTENT_CHARS]
    return {
        "content": content,
        "occurred_at": datetime.now(UTC).isoformat(),
        "source": hook.tool,
        "subject": f"project:{hook.project}"[:255],
        "thread": hook.session[:128],
        "provenance": provenance,
        "metadata": {"hook": hook.event, "role": role, "cwd": hook.cwd, "turn": hook.turn, **metadata},
        "idempotency_key": _key(hook, role, content),
    }


def prompt_item(hook: HookInput) -> dict | None:
    return _item(hook, role="user", content=hook.prompt, provenance="user") if hook.prompt.strip() else None


def response_item(hook: HookInput) -> dict | None:
    return _item(hook, role="assistant", content=hook.response, provenance="agent") if hook.response.strip() else None


def _text(value: object, limit: int) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        text = value
    elif isinstance(value, dict) and set(value) & {"command", "file_path", "path"}:
        text = str(value.get("command") or value.get("file_path") or value.get("path"))
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tool_item(hook: HookInput) -> dict | None:
    """``Bash: pytest -q → 3 failed`` style: what the tool was asked and what came back, both trimmed."""
    if not hook.tool_name:
        return None
    asked = _text(hook.tool_input, _TOOL_INPUT_CHARS)
    output = hook.tool_output
    if isinstance(output, dict):  # Claude Code's Bash answers {stdout, stderr, interrupted, ...}
        output = "\n".join(str(output[k]) for k in ("stdout", "stderr", "error") if output.get(k)) or output
    answered = _text(output, _TOOL_OUTPUT_CHARS)
    content = f"{hook.tool_name}: {asked}" + (f"\n→ {answered}" if answered else "")
    return _item(hook, role="tool", content=content, provenance="tool", tool_name=hook.tool_name)
