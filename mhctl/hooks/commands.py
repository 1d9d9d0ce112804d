"""``mhctl hooks install|uninstall`` and ``mhctl hook <event>`` (what the coding agent runs)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import click

from mhctl.hooks import handlers, spool
from mhctl.hooks.payloads import TOOLS


def _default_executable() -> str:
    argv0 = Path(sys.argv[0])
    if argv0.name == "mhctl" and argv0.exists():
        return str(argv0.resolve())
    return shutil.which("mhctl") or "mhctl"


@click.group("hooks")
def hooks_group():
    """Install MemoryHub's hooks into a coding agent (Claude Code, Codex, Cursor)."""


@hooks_group.command("install")
@click.argument("tool", type=click.Choice(TOOLS))
@click.option("--bank", "bank_slug", envvar="MEMORYHUB_BANK", required=True,
              help="Bank the hooks recall from and retain into (MEMORYHUB_BANK).")  # fmt: skip
@click.option("--scope", type=click.Choice(["user", "project"]), default="user", show_default=True,
              help="user: every project of this account; project: this project only (a file to commit).")  # fmt: skip
@click.option("--project-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="The project whose settings --scope project writes.")  # fmt: skip
@click.option("--command", "executable", default=None, help="Path of mhctl in the hook commands (default: this one).")
@click.option("--dry-run", is_flag=True, help="Show the change and write nothing.")
@click.option("--force", is_flag=True, help="Replace MemoryHub hooks that differ (another bank or path).")
@click.option("--yes", is_flag=True, help="Do not ask before writing.")
@click.pass_obj
def hooks_install(ctx, tool, bank_slug, scope, project_dir, executable, dry_run, force, yes):
    """Merge the hook configuration for TOOL into its settings file, showing the diff first."""
    from mhctl.hooks import install as installer

    path = installer.settings_path(tool, scope, project_dir.resolve())
    try:
        plan = installer.plan_install(
            tool, path, executable=executable or _default_executable(), bank=bank_slug, force=force
        )
    except installer.InstallConflict as conflict:
        if dry_run or yes or not sys.stdin.isatty():
            raise click.ClickException(f"{conflict}\nre-run with --force to replace them") from None
        click.echo(str(conflict), err=True)
        click.confirm("Replace them?", abort=True, err=True)
        plan = installer.plan_install(tool, path, executable=executable or _default_executable(), bank=bank_slug,
                                      force=True)  # fmt: skip
    except installer.SettingsUnreadable as exc:
        raise click.ClickException(str(exc)) from None
    _apply(ctx, plan, dry_run=dry_run, yes=yes, tool=tool)


@hooks_group.command("uninstall")
@click.argument("tool", type=click.Choice(TOOLS))
@click.option("--scope", type=click.Choice(["user", "project"]), default="user", show_default=True,
              help="Which settings file to clean.")  # fmt: skip
@click.option("--project-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="The project whose settings --scope project cleans.")  # fmt: skip
@click.option("--dry-run", is_flag=True, help="Show the change and write nothing.")
@click.option("--yes", is_flag=True, help="Do not ask before writing.")
@click.pass_obj
def hooks_uninstall(ctx, tool, scope, project_dir, dry_run, yes):
    """Remove MemoryHub's hooks for TOOL, keeping every other hook and setting."""
    from mhctl.hooks import install as installer

    plan = installer.plan_uninstall(tool, installer.settings_path(tool, scope, project_dir.resolve()))
    _apply(ctx, plan, dry_run=dry_run, yes=yes, tool=tool)


def _apply(ctx, plan, *, dry_run: bool, yes: bool, tool: str) -> None:
    from mhctl.hooks import install as installer

    if not plan.changed:
        ctx.emit({"path": str(plan.path), "changed": False}, f"{plan.path}: already up to date")
        return
    click.echo(plan.diff(), err=ctx.as_json, nl=False)
    if dry_run:
        ctx.emit({"path": str(plan.path), "changed": True, "written": False, "settings": json.loads(plan.after)},
                 f"(dry run: {plan.path} not written)")  # fmt: skip
        return
    if not yes and sys.stdin.isatty():
        click.confirm(f"Write {plan.path}?", abort=True, err=True)
    backup = installer.write(plan)
    note = " Codex asks you to trust new hooks before they run." if tool == "codex" else ""
    ctx.emit({"path": str(plan.path), "changed": True, "written": True, "backup": str(backup) if backup else None},
             f"{plan.path} written" + (f" (previous version in {backup})" if backup else "") + "." + note)  # fmt: skip


# --- the hooks themselves ----------------------------------------------------------------


@click.group("hook")
def hook_group():
    """Commands a coding agent runs as hooks: payload on stdin, answer on stdout; they never fail the agent."""


_TOOL_HELP = "Which agent sends the payload (default: told from the payload)."
_BANK_HELP = "Bank to recall from and retain into (MEMORYHUB_BANK)."


def _hook_options(function):
    function = click.option("--tool", type=click.Choice(TOOLS), default=None, help=_TOOL_HELP)(function)
    return click.option("--bank", "bank_slug", envvar="MEMORYHUB_BANK", default="", help=_BANK_HELP)(function)


def _run(ctx, event: str, bank_slug: str, tool: str | None, **options) -> None:
    raw = sys.stdin.read() if not sys.stdin.isatty() else ""
    answer = handlers.run_event(event, raw, tool=tool, bank=bank_slug, url=ctx.url, key=ctx.key, **options)
    if answer:
        click.echo(answer)


@hook_group.command("session-start")
@_hook_options
@click.option("--budget", type=int, default=800, show_default=True, help="Token budget of the recalled context.")
@click.option("--query", default=None, help="What to recall (default: the project's decisions and recent work).")
@click.option("--timeout", type=float, default=2.0, show_default=True, help="Seconds to wait for MemoryHub.")
@click.pass_obj
def hook_session_start(ctx, bank_slug, tool, budget, query, timeout):
    """Answer with the bank's fenced context for this project; replay spooled items in the background."""
    _run(ctx, "session-start", bank_slug, tool, budget=budget, query=query, timeout=timeout)


@hook_group.command("user-prompt")
@_hook_options
@click.option("--budget", type=int, default=400, show_default=True, help="Token budget of the recalled context.")
@click.option("--timeout", type=float, default=2.0, show_default=True, help="Seconds to wait for MemoryHub.")
@click.pass_obj
def hook_user_prompt(ctx, bank_slug, tool, budget, timeout):
    """Answer with the bank's fenced context for the prompt (Claude Code, Codex); spool the prompt."""
    _run(ctx, "user-prompt", bank_slug, tool, budget=budget, timeout=timeout)


@hook_group.command("post-tool")
@_hook_options
@click.pass_obj
def hook_post_tool(ctx, bank_slug, tool):
    """Spool what a tool call did (sent with the turn's end)."""
    _run(ctx, "post-tool", bank_slug, tool)


@hook_group.command("stop")
@_hook_options
@click.option("--no-flush", is_flag=True, help="Only spool; leave sending to the next flush.")
@click.pass_obj
def hook_stop(ctx, bank_slug, tool, no_flush):
    """Spool the agent's reply and send the turn in the background."""
    _run(ctx, "stop", bank_slug, tool, no_flush=no_flush)


@hook_group.command("flush")
@click.option("--if-idle", is_flag=True, help="Exit at once when another flush is running (hooks use this).")
@click.pass_obj
def hook_flush(ctx, if_idle):
    """Send spooled items now; what cannot be sent stays spooled (idempotency keys make replays harmless)."""
    report = spool.flush(_sender(*handlers.connection(ctx.url, ctx.key)), blocking=not if_idle)
    data = {"sent": report.sent, "created": report.created, "left": report.left, "rejected": report.rejected,
            "busy": report.busy, "errors": report.errors[:5]}  # fmt: skip
    ctx.emit(data, "another flush is running" if report.busy else
             f"{report.sent} sent ({report.created} new), {report.left} left, {report.rejected} rejected")  # fmt: skip


def _sender(url: str, key: str | None):
    from memoryhub_client import MemoryHub
    from memoryhub_client import errors as client_errors

    hub = MemoryHub(url, api_key=key, timeout=15.0, max_retries=1)

    def send(bank: str, batch: list[dict]) -> int:
        # The same items make the same batch key: a replayed batch gets the first answer back.
        batch_key = "hook-batch:" + hashlib.sha256("|".join(i["idempotency_key"] for i in batch).encode()).hexdigest()
        try:
            result = hub.retain(bank, batch, idempotency_key=batch_key[:128])
        except client_errors.TransportError as exc:
            raise spool.Unavailable(f"transport: {exc}") from None
        except client_errors.MemoryHubError as exc:
            if exc.status_code in (400, 409, 413, 422):
                raise spool.Rejected(f"{exc.code}: {exc.detail}") from None
            raise spool.Unavailable(f"{exc.status_code} {exc.code}") from None
        return 0 if result.replayed else result.created

    return send
