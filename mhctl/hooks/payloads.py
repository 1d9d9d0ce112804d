"""Each tool's hook payload (JSON on stdin) read into one shape, and the answers each tool expects.

Formats, as documented by each tool:

- Claude Code (code.claude.com/docs/en/hooks): common ``session_id``, ``transcript_path``,
  ``cwd``, ``hook_event_name``; ``SessionStart`` adds ``source``, ``UserPromptSubmit``
  ``prompt``, ``PostToolUse`` ``tool_name``/``tool_input``/``tool_response``; ``Stop`` has no
  reply text, so the last assistant message is read from the transcript (JSON lines).
  Context goes back as ``{"hookSpecificOutput": {"hookEventName", "additionalContext"}}``.
- Codex (developers.openai.com/codex/hooks; schemas in openai/codex
  ``codex-rs/hooks/schema/generated``): the same fields plus ``turn_id`` and ``model``;
  ``Stop`` carries ``last_assistant_message``; the same ``hookSpecificOutput`` answer.
- Cursor (cursor.com/docs/agent/hooks): common ``conversation_id``, ``generation_id``,
  ``workspace_roots``, ``hook_event_name``; ``beforeSubmitPrompt`` has ``prompt`` and can
  only allow or block (``{"continue": true}``), so Cursor gets context at ``sessionStart``
  (``{"additional_context": ...}``); ``afterAgentResponse`` has the reply ``text``;
  ``postToolUse`` has ``tool_name``, ``tool_input``, ``tool_output``.
"""

from __future__ import annotations

import json
import os

TOOLS = ("claude-code", "codex", "cursor")
# Our event names, and the event each tool calls them.
EVENTS = {
    "session-start": {"claude-code": "SessionStart", "codex": "SessionStart", "cursor": "sessionStart"},
    "user-prompt": {"claude-code": "UserPromptSubmit", "codex": "UserPromptSubmit", "cursor": "beforeSubmitPrompt"},
    "post-tool": {"claude-code": "PostToolUse", "codex": "PostToolUse", "cursor": "postToolUse"},
    "stop": {"claude-code": "Stop", "codex": "Stop", "cursor": "afterAgentResponse"},
}
_TRANSCRIPT_TAIL_BYTES = 256 * 1024


class HookInput:
    """One hook call, whichever tool made it (a plain class: dataclasses cost the hook's start-up 10 ms)."""

    __slots__ = ("tool", "event", "session", "turn", "cwd", "prompt", "response", "tool_name", "tool_input",
                 "tool_output", "raw")  # fmt: skip

    def __init__(self, *, tool: str, event: str, session: str, turn: str, cwd: str, prompt: str = "",
                 response: str = "", tool_name: str = "", tool_input: object = None, tool_output: object = None,
                 raw: dict | None = None):  # fmt: skip
        self.tool, self.event, self.session, self.turn, self.cwd = tool, event, session, turn, cwd
        self.prompt, self.response, self.tool_name = prompt, response, tool_name
        self.tool_input, self.tool_output, self.raw = tool_input, tool_output, raw or {}

    @property
    def project(self) -> str:
        return os.path.basename(self.cwd.rstrip("/")) or "workspace"


def detect_tool(payload: dict) -> str:
    if "conversation_id" in payload or "cursor_version" in payload or "workspace_roots" in payload:
        return "cursor"
    if "turn_id" in payload:
        return "codex"
    return "claude-code"


def parse(raw: str, tool: str | None = None) -> HookInput:
    """The payload in one shape; an empty or broken payload reads as an empty one (hooks never fail the agent)."""
    try:
        payload = json.loads(raw) if raw.strip() else {}
    except ValueError:
        payload = {}
    if not isinstance(payload, dict):
        payload = {}
    tool = tool or detect_tool(payload)
    if tool == "cursor":
        roots = payload.get("workspace_roots") or []
        return HookInput(
            tool=tool,
            event=str(payload.get("hook_event_name", "")),
            session=str(payload.get("conversation_id") or payload.get("session_id") or ""),
            turn=str(payload.get("generation_id") or ""),
            cwd=str(roots[0] if roots else payload.get("cwd") or os.getcwd()),
            prompt=str(payload.get("prompt") or ""),
            response=str(payload.get("text") or ""),
            tool_name=str(payload.get("tool_name") or ""),
            tool_input=payload.get("tool_input"),
            tool_output=payload.get("tool_output", payload.get("result_json")),
            raw=payload,
        )
    response = payload.get("last_assistant_message")
    if response is None and payload.get("hook_event_name") == "Stop":
        response = last_assistant_text(payload.get("transcript_path"))
    return HookInput(
        tool=tool,
        event=str(payload.get("hook_event_name", "")),
        session=str(payload.get("session_id") or ""),
        turn=str(payload.get("turn_id") or ""),
        cwd=str(payload.get("cwd") or os.getcwd()),
        prompt=str(payload.get("prompt") or ""),
        response=str(response or ""),
        tool_name=str(payload.get("tool_name") or ""),
        tool_input=payload.get("tool_input"),
        tool_output=payload.get("tool_response"),
        raw=payload,
    )


def last_assistant_text(transcript_path: str | None) -> str:
    """The text of the last assistant message in a Claude Code transcript (JSON lines), '' if none."""
    if not transcript_path or not os.path.isfile(transcript_path):
        return ""
    with open(transcript_path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        handle.seek(max(0, handle.tell() - _TRANSCRIPT_TAIL_BYTES))
        lines = handle.read().decode("utf-8", errors="replace").splitlines()
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if entry.get("type") != "assistant" or not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        blocks = [block for block in content or [] if isinstance(block, dict) and block.get("type") == "text"]
        texts = [block.get("text", "") for block in blocks]
        if any(texts):
            return "\n".join(t for t in texts if t)
    return ""


def context_answer(hook: HookInput, our_event: str, context: str) -> str:
    """What to print on stdout so the tool adds ``context`` (may be empty) to the conversation."""
    if hook.tool == "cursor":
        if our_event == "user-prompt":
            return json.dumps({"continue": True})  # Cursor cannot add context before a prompt
        return json.dumps({"additional_context": context} if context else {})
    if not context:
        return ""
    event = EVENTS[our_event][hook.tool]
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}})


def quiet_answer(hook: HookInput) -> str:
    """The answer of a hook that only records: nothing, or the empty object Cursor expects."""
    return "{}" if hook.tool == "cursor" else ""
