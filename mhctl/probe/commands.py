"""``mhctl probe``: the command, its check list and its report."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import click

# In this order: isolation runs after the others, so any object they left in bank A is probed too.
CHECK_NAMES = ("schema", "json_errors", "rate_limit_headers", "read_your_writes", "budget", "fence", "erasure",
               "isolation")  # fmt: skip


def checks() -> dict:
    """Name -> check (imported when the probe runs: other commands, hooks above all, must start fast)."""
    from mhctl.probe import checks_access as access
    from mhctl.probe import checks_memory as memory

    return {name: getattr(access, f"check_{name}", None) or getattr(memory, f"check_{name}") for name in CHECK_NAMES}


@click.command("probe")
@click.option("--key-a", envvar="MEMORYHUB_PROBE_KEY_A", default=None,
              help="Key A (default: --key / MEMORYHUB_API_KEY; env MEMORYHUB_PROBE_KEY_A).")  # fmt: skip
@click.option("--key-b", envvar="MEMORYHUB_PROBE_KEY_B", required=True,
              help="Key B: another tenant's, or scoped to another bank (env MEMORYHUB_PROBE_KEY_B).")  # fmt: skip
@click.option("--bank-a", default=None, help="Use this bank of key A instead of creating a scratch bank.")
@click.option("--bank-b", default=None, help="Use this bank of key B instead of creating a scratch bank.")
@click.option("--check", "only", multiple=True, type=click.Choice(CHECK_NAMES),
              help="Run only these checks (repeatable; default: all).")  # fmt: skip
@click.option("--wait", "wait_seconds", type=float, default=120.0, show_default=True,
              help="Seconds to wait for background work (an erasure) to finish.")  # fmt: skip
@click.option("--json-out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the results as JSON to this file.")  # fmt: skip
@click.pass_obj
def probe(ctx, key_a, key_b, bank_a, bank_b, only, wait_seconds, json_out):
    """Check a live deployment's isolation, budgets, fence, erasure and errors with two keys; exit 1 on a failure.

    Checks: schema, json_errors, rate_limit_headers, read_your_writes, budget, fence,
    erasure, isolation (every bank route of the published OpenAPI schema). What the probe
    writes goes into scratch banks (or is tagged and deleted) and is removed at the end.
    """
    url = ctx.url or os.environ.get("MEMORYHUB_URL") or "http://127.0.0.1:8000"
    key_a = key_a or ctx.key or os.environ.get("MEMORYHUB_API_KEY")
    if not key_a:
        raise click.UsageError("give key A with --key-a (or --key / MEMORYHUB_API_KEY)")
    from mhctl.probe.runner import Run, dumps, report, table

    started = datetime.now(UTC)
    run = Run(url=url, key_a=key_a, key_b=key_b, bank_a=bank_a, bank_b=bank_b, wait_seconds=wait_seconds)
    selected = [(name, check) for name, check in checks().items() if not only or name in only or name == "schema"]
    results = run.execute(selected)
    data = report(results, url=url, run_id=run.id, started_at=started)
    if json_out is not None:
        json_out.write_text(dumps(data) + "\n", encoding="utf-8")
    ctx.emit(data, table(results) + f"\n\n{'PASSED' if data['passed'] else 'FAILED'} ({url}, run {run.id})")
    if not data["passed"]:
        raise SystemExit(1)
