"""Coding-agent hooks against the real service: recorded payloads of Claude Code, Codex and Cursor.

Each hook runs as the agent runs it: the command the installer wrote, in a shell, with the
payload on stdin. Items to retain go through the local spool and a real background flush.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from beliefs.engine.rendering import RECALL_FENCE
from beliefs.models import Episode
from memoryhub.tokens import count_tokens
from tests.helpers.callers import make_caller, retain_texts
from tests.integrations.tcp_proxy import TcpProxy

PAYLOADS = Path(__file__).parent / "hook_payloads"
MHCTL = str(Path(sys.executable).parent / "mhctl")
EVENTS = {"session-start": "session_start", "user-prompt": "user_prompt", "post-tool": "post_tool", "stop": "stop"}
TOOL_EVENT = {
    "claude-code": {"session-start": "SessionStart", "user-prompt": "UserPromptSubmit", "post-tool": "PostToolUse",
                    "stop": "Stop"},
    "codex": {"session-start": "SessionStart", "user-prompt": "UserPromptSubmit", "post-tool": "PostToolUse",
              "stop": "Stop"},
    "cursor": {"session-start": "sessionStart", "user-prompt": "beforeSubmitPrompt", "post-tool": "postToolUse",
               "stop": "afterAgentResponse"},
}  # fmt: skip
REPLY = "Deployed billing-api 2.4.1 to staging with ./scripts/deploy.sh staging (the VPN must be up first)."


def payload(tool: str, event: str) -> str:
    text = (PAYLOADS / tool / f"{EVENTS[event]}.json").read_text()
    return text.replace("{{TRANSCRIPT}}", str(PAYLOADS / tool / "transcript.jsonl"))


@pytest.fixture
def agent_home(tmp_path):
    """A home directory and hook state directory of their own (the installer writes under HOME)."""
    home = tmp_path / "home"
    home.mkdir()
    return home


def hook_env(home: Path, url: str, key: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYHUB_")}
    return {**env, "HOME": str(home), "MHCTL_STATE_DIR": str(home / "state"), "MEMORYHUB_URL": url,
            "MEMORYHUB_API_KEY": key}  # fmt: skip


def install(tool: str, bank: str, env: dict) -> dict:
    result = subprocess.run(
        [MHCTL, "--json", "hooks", "install", tool, "--bank", bank, "--command", MHCTL, "--yes"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(Path(json.loads(result.stdout)["path"]).read_text())


def installed_command(settings: dict, tool: str, event: str) -> str:
    entries = settings["hooks"][TOOL_EVENT[tool][event]]
    commands = (
        [e["command"] for e in entries] if tool == "cursor" else [h["command"] for e in entries for h in e["hooks"]]
    )
    [command] = [c for c in commands if "mhctl" in c]
    return command


def run_hook(command: str, stdin: str, env: dict) -> subprocess.CompletedProcess:
    result = subprocess.run(["bash", "-c", command], input=stdin, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result


def flush(env: dict) -> dict:
    """A flush in the foreground: it waits for a background one still running, then sends what is left."""
    result = subprocess.run([MHCTL, "--json", "hook", "flush"], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def injected_context(tool: str, event: str, stdout: str) -> str:
    if tool == "cursor":
        answer = json.loads(stdout)
        return answer.get("additional_context", "")
    if not stdout.strip():
        return ""
    output = json.loads(stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == TOOL_EVENT[tool][event]
    return output["additionalContext"]


@pytest.mark.parametrize("tool", ["claude-code", "codex", "cursor"])
def test_installed_hooks_recall_fenced_context_and_retain_the_turn(tool, transactional_db, live_server, agent_home):
    caller = make_caller()
    retain_texts(caller.bank, [
        "billing-api deploys to staging with ./scripts/deploy.sh staging; the VPN must be up first.",
        "The payments team owns the ledger service; page them for ledger incidents.",
    ])  # fmt: skip
    env = hook_env(agent_home, live_server.url, caller.raw_key)
    settings = install(tool, caller.bank.slug, env)

    started = run_hook(installed_command(settings, tool, "session-start"), payload(tool, "session-start"), env)
    context = injected_context(tool, "session-start", started.stdout)
    assert context.startswith(RECALL_FENCE) and context.endswith(f"{RECALL_FENCE} end")
    assert "│ billing-api deploys to staging" in context and count_tokens(context) <= 800

    prompted = run_hook(installed_command(settings, tool, "user-prompt"), payload(tool, "user-prompt"), env)
    if tool == "cursor":
        assert json.loads(prompted.stdout) == {"continue": True}  # beforeSubmitPrompt cannot add context
    else:
        context = injected_context(tool, "user-prompt", prompted.stdout)
        assert "│ billing-api deploys to staging with ./scripts/deploy.sh staging" in context
        assert count_tokens(context) <= 400 and "ledger" not in context.split("deploy.sh staging")[0]

    for event in ("post-tool", "stop"):
        answered = run_hook(installed_command(settings, tool, event), payload(tool, event), env)
        assert answered.stdout.strip() == ("{}" if tool == "cursor" else "")
    flush(env)

    stored = {e.provenance: e for e in Episode.objects.filter(bank=caller.bank, source=tool)}
    assert set(stored) == {"user", "tool", "agent"}
    assert stored["user"].content == "How do I deploy billing-api to staging?"
    assert stored["tool"].content.startswith(
        ("Bash: ./scripts/deploy.sh staging", "Shell: ./scripts/deploy.sh staging")
    )
    assert "deployed billing-api 2.4.1 to staging in 41s" in stored["tool"].content
    assert stored["agent"].content == REPLY
    session = (
        json.loads(payload(tool, "stop")).get("session_id") or json.loads(payload(tool, "stop"))["conversation_id"]
    )
    assert {e.thread for e in stored.values()} == {session}
    assert {e.subject for e in stored.values()} == {"project:billing-api"}
    assert not (agent_home / "state" / "spool.jsonl").exists() or not (agent_home / "state" / "spool.jsonl").read_text()


def test_items_spooled_while_the_service_is_down_are_stored_exactly_once_when_it_is_back(
    transactional_db, live_server, agent_home
):
    caller = make_caller()
    target = urlsplit(live_server.url)
    proxy = TcpProxy(target.hostname, target.port)  # the service, as the hooks see it: down until started
    env = hook_env(agent_home, proxy.url, caller.raw_key)
    command = f"{MHCTL} hook {{event}} --tool claude-code --bank {caller.bank.slug}"
    try:
        prompted = run_hook(command.format(event="user-prompt"), payload("claude-code", "user-prompt"), env)
        assert prompted.stdout == "" and "not reachable" in prompted.stderr  # no context, the agent goes on
        # Only spool at the stop: a background flush started here could begin after the foreground flush below and
        # hold the spool renamed while it is read (the background flush has its own test, further down).
        run_hook(command.format(event="stop") + " --no-flush", payload("claude-code", "stop"), env)
        down = flush(env)
        assert down["sent"] == 0 and down["left"] == 2 and "transport" in down["errors"][0]
        spooled = (agent_home / "state" / "spool.jsonl").read_text().splitlines()
        assert [json.loads(line)["item"]["provenance"] for line in spooled] == ["user", "agent"]

        proxy.start()
        back = flush(env)
        assert back == {**back, "sent": 2, "created": 2, "left": 0, "rejected": 0}
        assert flush(env)["sent"] == 0
        # A flush that died after the server stored its batch leaves the batch behind; the replay stores nothing.
        (agent_home / "state" / "sending.jsonl").write_text("\n".join(spooled) + "\n")
        replayed = flush(env)
        assert replayed["sent"] == 2 and replayed["created"] == 0 and replayed["left"] == 0
    finally:
        proxy.stop()
    contents = sorted(Episode.objects.filter(bank=caller.bank).values_list("content", flat=True))
    assert contents == sorted(["How do I deploy billing-api to staging?", REPLY])


def test_a_background_flush_sends_the_turn_without_being_waited_for(transactional_db, live_server, agent_home):
    caller = make_caller()
    env = hook_env(agent_home, live_server.url, caller.raw_key)
    command = f"{MHCTL} hook stop --tool codex --bank {caller.bank.slug}"
    run_hook(command, payload("codex", "stop"), env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not Episode.objects.filter(bank=caller.bank).exists():
        time.sleep(0.2)
    assert list(Episode.objects.filter(bank=caller.bank).values_list("content", flat=True)) == [REPLY]


# --- installing --------------------------------------------------------------------------


def run_install(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MHCTL, "hooks", *args], env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )


def test_install_merges_into_existing_claude_settings_shows_the_diff_and_keeps_a_backup(agent_home):
    env = hook_env(agent_home, "http://127.0.0.1:9", "mh_x")
    path = agent_home / ".claude" / "settings.json"
    path.parent.mkdir()
    guard = {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}
    mine = {"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
                                       "PreToolUse": [guard]}}  # fmt: skip
    path.write_text(json.dumps(mine))

    result = run_install(env, "install", "claude-code", "--bank", "ops", "--command", "/opt/mh/bin/mhctl", "--yes")
    assert result.returncode == 0, result.stderr
    assert "+++ " in result.stdout and '"command": "/opt/mh/bin/mhctl hook stop --tool claude-code --bank ops"' in (
        result.stdout
    )
    settings = json.loads(path.read_text())
    assert settings["model"] == "opus" and settings["hooks"]["PreToolUse"] == mine["hooks"]["PreToolUse"]
    assert settings["hooks"]["Stop"][0] == mine["hooks"]["Stop"][0] and len(settings["hooks"]["Stop"]) == 2
    assert settings["hooks"]["PostToolUse"][0]["matcher"] == "Bash|Edit|MultiEdit|Write|NotebookEdit"
    command = "/opt/mh/bin/mhctl hook session-start --tool claude-code --bank ops"
    assert settings["hooks"]["SessionStart"][0]["hooks"][0] == {"type": "command", "command": command, "timeout": 10}
    assert json.loads((agent_home / ".claude" / "settings.json.bak").read_text()) == mine

    again = run_install(env, "install", "claude-code", "--bank", "ops", "--command", "/opt/mh/bin/mhctl", "--yes")
    assert again.returncode == 0 and "already up to date" in again.stdout


def test_install_refuses_to_overwrite_different_memoryhub_hooks_unless_forced(agent_home):
    env = hook_env(agent_home, "http://127.0.0.1:9", "mh_x")
    assert run_install(env, "install", "cursor", "--bank", "ops", "--command", "/opt/mhctl", "--yes").returncode == 0
    path = agent_home / ".cursor" / "hooks.json"
    before = path.read_text()
    assert json.loads(before)["version"] == 1 and set(json.loads(before)["hooks"]) == {
        "sessionStart", "beforeSubmitPrompt", "postToolUse", "afterAgentResponse"}  # fmt: skip

    refused = run_install(env, "install", "cursor", "--bank", "support", "--command", "/opt/mhctl", "--yes")
    assert refused.returncode == 1 and "--force" in refused.stderr and "--bank ops" in refused.stderr
    assert path.read_text() == before

    forced = run_install(env, "install", "cursor", "--bank", "support", "--command", "/opt/mhctl", "--yes", "--force")
    assert forced.returncode == 0
    commands = [e["command"] for entries in json.loads(path.read_text())["hooks"].values() for e in entries]
    assert len(commands) == 4 and all(c.endswith("--tool cursor --bank support") for c in commands)


def test_dry_run_writes_nothing_and_project_scope_writes_the_project_file(agent_home, tmp_path):
    env = hook_env(agent_home, "http://127.0.0.1:9", "mh_x")
    project = tmp_path / "repo"
    project.mkdir()
    dry = run_install(env, "install", "codex", "--bank", "ops", "--scope", "project", "--project-dir", str(project),
                      "--command", "/opt/mhctl", "--dry-run")  # fmt: skip
    assert dry.returncode == 0 and "dry run" in dry.stdout and not (project / ".codex").exists()
    done = run_install(env, "install", "codex", "--bank", "ops", "--scope", "project", "--project-dir", str(project),
                       "--command", "/opt/mhctl", "--yes")  # fmt: skip
    assert done.returncode == 0
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}
    assert hooks["PostToolUse"][0]["matcher"] == "Bash|apply_patch" and not (agent_home / ".codex").exists()

    removed = run_install(env, "uninstall", "codex", "--scope", "project", "--project-dir", str(project), "--yes")
    assert removed.returncode == 0 and json.loads((project / ".codex" / "hooks.json").read_text()) == {"hooks": {}}


def test_a_settings_file_that_is_not_json_is_left_alone(agent_home):
    env = hook_env(agent_home, "http://127.0.0.1:9", "mh_x")
    path = agent_home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{ not json")
    result = run_install(env, "install", "claude-code", "--bank", "ops", "--yes")
    assert result.returncode == 1 and "not valid JSON" in result.stderr and path.read_text() == "{ not json"


def test_hooks_never_fail_the_agent_on_an_empty_or_broken_payload(agent_home):
    env = hook_env(agent_home, "http://127.0.0.1:9", "mh_x")
    for event in ("session-start", "user-prompt", "post-tool", "stop"):
        result = subprocess.run([MHCTL, "hook", event, "--bank", "ops", "--tool", "claude-code"], input="not json",
                                env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
        assert result.returncode == 0 and result.stdout == "", (event, result.stderr)
    assert shutil.which("bash")


def test_the_fast_entry_and_the_click_command_answer_alike(transactional_db, live_server, agent_home):
    caller = make_caller()
    retain_texts(caller.bank, ["billing-api deploys to staging with ./scripts/deploy.sh staging."])
    env = hook_env(agent_home, live_server.url, caller.raw_key)
    for event in ("session-start", "user-prompt"):
        args = ["hook", event, "--tool", "codex", "--bank", caller.bank.slug, "--budget", "300"]
        fast = run_hook(" ".join([MHCTL, *args]), payload("codex", event), env).stdout
        click_path = run_hook(
            " ".join([sys.executable, "-m", "mhctl.main", *args]), payload("codex", event), env
        ).stdout
        assert fast == click_path and "deploy.sh staging" in fast


@pytest.mark.parametrize(
    ("argv", "fast"),
    [
        (["hook", "user-prompt", "--tool", "cursor", "--bank", "ops", "--budget=300"], True),
        (["hook", "stop", "--no-flush", "--bank", "ops"], True),
        (["hook", "user-prompt", "--help"], False),  # help comes from click
        (["hook", "user-prompt", "--budget", "many"], False),  # click reports the bad value
        (["hook", "user-prompt", "--tool", "vim"], False),
        (["hook", "flush"], False),
        (["--url", "http://x", "hook", "stop"], False),
        (["recall", "q"], False),
    ],
)
def test_the_fast_entry_takes_only_what_it_fully_understands(argv, fast):
    from mhctl.entry import fast_arguments

    assert (fast_arguments(argv) is not None) is fast
