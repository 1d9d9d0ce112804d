"""``mhctl hooks install``: each tool's documented hook configuration, merged into its settings file.

Where each tool reads hooks (user scope / project scope):

- Claude Code: ``~/.claude/settings.json`` / ``<project>/.claude/settings.json``, key ``hooks``:
  ``{event: [{"matcher": ..., "hooks": [{"type": "command", "command": ..., "timeout": s}]}]}``.
- Codex: ``~/.codex/hooks.json`` / ``<project>/.codex/hooks.json``, the same shape (Codex asks the
  user to trust a new hook before it runs).
- Cursor: ``~/.cursor/hooks.json`` / ``<project>/.cursor/hooks.json``,
  ``{"version": 1, "hooks": {event: [{"command": ...}]}}``.

The merge keeps every other key and every other hook. An entry of ours is one whose command
runs ``mhctl ... hook <event>``; one that differs from what would be written (another bank,
another path) is a conflict, replaced only when the caller agrees (``--force`` or a prompt).
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mhctl.hooks.payloads import EVENTS

TIMEOUT_SECONDS = {"session-start": 10, "user-prompt": 10, "post-tool": 10, "stop": 10}
# Which tool calls are worth remembering: commands run and files changed (reads and searches are not).
_TOOL_MATCHERS = {"claude-code": "Bash|Edit|MultiEdit|Write|NotebookEdit", "codex": "Bash|apply_patch"}
_SESSION_MATCHERS = {"claude-code": "startup|resume|clear|compact", "codex": "startup|resume|clear"}
_OURS = re.compile(r"\bhook\s+(session-start|user-prompt|post-tool|stop)\b")


class InstallConflict(Exception):
    """Existing entries of ours differ from what would be written; ``entries`` lists them."""

    def __init__(self, path: Path, entries: list[str]):
        super().__init__(f"{path} already has MemoryHub hooks that differ: " + "; ".join(entries))
        self.path, self.entries = path, entries


class SettingsUnreadable(Exception):
    pass


@dataclass(frozen=True)
class Plan:
    path: Path
    before: str  # '' when the file does not exist
    after: str
    conflicts: list[str]

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        lines = difflib.unified_diff(
            self.before.splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=f"{self.path} (now)" if self.before else "/dev/null",
            tofile=str(self.path),
        )
        return "".join(lines)


def settings_path(tool: str, scope: str, project_dir: Path) -> Path:
    base = Path.home() if scope == "user" else project_dir
    folder, name = {"claude-code": (".claude", "settings.json"), "codex": (".codex", "hooks.json"),
                    "cursor": (".cursor", "hooks.json")}[tool]  # fmt: skip
    return base / folder / name


def hook_command(executable: str, our_event: str, tool: str, bank: str) -> str:
    return " ".join(shlex.quote(part) for part in [executable, "hook", our_event, "--tool", tool, "--bank", bank])


def wanted_entries(tool: str, executable: str, bank: str) -> dict[str, dict]:
    """The tool's event name → the one hook group (or Cursor entry) MemoryHub adds for it."""
    entries = {}
    for our_event, names in EVENTS.items():
        command = hook_command(executable, our_event, tool, bank)
        if tool == "cursor":
            entries[names[tool]] = {"command": command}
            continue
        group: dict = {"hooks": [{"type": "command", "command": command, "timeout": TIMEOUT_SECONDS[our_event]}]}
        matcher = {"session-start": _SESSION_MATCHERS, "post-tool": _TOOL_MATCHERS}.get(our_event, {}).get(tool)
        if matcher:
            group = {"matcher": matcher, **group}
        entries[names[tool]] = group
    return entries


def _commands(entry: dict) -> list[str]:
    if "command" in entry:
        return [str(entry["command"])]
    return [str(h.get("command", "")) for h in entry.get("hooks", []) if isinstance(h, dict)]


def _is_ours(entry) -> bool:
    return isinstance(entry, dict) and any(_OURS.search(c) and "mhctl" in c for c in _commands(entry))


def plan_install(tool: str, path: Path, *, executable: str, bank: str, force: bool = False) -> Plan:
    """What the settings file would become; raises :class:`InstallConflict` unless ``force``."""
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        settings = json.loads(before) if before.strip() else {}
    except ValueError as exc:
        raise SettingsUnreadable(f"{path} is not valid JSON ({exc}); fix or move it first") from None
    if not isinstance(settings, dict) or not isinstance(settings.get("hooks", {}), dict):
        raise SettingsUnreadable(f"{path}: expected a JSON object with a 'hooks' object")
    merged = copy.deepcopy(settings)
    if tool == "cursor":
        merged.setdefault("version", 1)
    hooks = merged.setdefault("hooks", {})
    conflicts = []
    for event, entry in wanted_entries(tool, executable, bank).items():
        current = hooks.get(event, [])
        if not isinstance(current, list):
            raise SettingsUnreadable(f"{path}: hooks.{event} is not a list")
        ours = [e for e in current if _is_ours(e)]
        if ours == [entry]:
            continue
        if ours:
            conflicts += [f"{event}: {c}" for e in ours for c in _commands(e)]
        hooks[event] = [e for e in current if not _is_ours(e)] + [entry]
    if conflicts and not force:
        raise InstallConflict(path, conflicts)
    after = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
    if before and json.loads(before) == merged:
        after = before  # already installed: leave the file's own formatting alone
    return Plan(path=path, before=before, after=after, conflicts=conflicts)


def plan_uninstall(tool: str, path: Path) -> Plan:
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    if not before.strip():
        return Plan(path=path, before=before, after=before, conflicts=[])
    settings = json.loads(before)
    hooks = settings.get("hooks", {}) if isinstance(settings, dict) else {}
    changed = False
    for event in list(hooks):
        kept = [e for e in hooks[event] if not _is_ours(e)] if isinstance(hooks[event], list) else hooks[event]
        if kept != hooks[event]:
            changed = True
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    after = json.dumps(settings, indent=2, ensure_ascii=False) + "\n" if changed else before
    return Plan(path=path, before=before, after=after, conflicts=[])


def write(plan: Plan) -> Path | None:
    """Write atomically, keeping the previous file as ``<name>.bak``; returns the backup's path."""
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if plan.before:
        backup = plan.path.with_name(plan.path.name + ".bak")
        backup.write_text(plan.before, encoding="utf-8")
    mode = plan.path.stat().st_mode & 0o777 if plan.path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(dir=plan.path.parent, prefix=f".{plan.path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(plan.after)
    os.chmod(tmp, mode)
    os.replace(tmp, plan.path)
    return backup
