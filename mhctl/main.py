"""``mhctl``: the admin and scripting command line.

Two ways in:

- **API** (default): ``--url``/``MEMORYHUB_URL`` and ``--key``/``MEMORYHUB_API_KEY``, through
  the Python client — what an operator or a script on any machine uses.
- **Database** (``--db``): Django with the server's settings (``DATABASE_URL`` or the
  embedded PostgreSQL), for bootstrapping before any key exists: ``tenant create``,
  ``bank create``, ``key create|revoke``, ``erase``.

``--json`` prints machine-readable JSON on stdout; progress goes to stderr.
"""

from __future__ import annotations

import csv
import hashlib
import json
import sys
from pathlib import Path

import click

from mhctl import database as db_mode
from mhctl.hooks.commands import hook_group, hooks_group
from mhctl.probe.commands import probe

RETAIN_BATCH = 500


class Context:
    def __init__(self, url: str | None, key: str | None, as_json: bool, use_db: bool):
        self.url, self.key, self.as_json, self.use_db = url, key, as_json, use_db
        self._hub = None

    @property
    def hub(self):
        """The Python client (imported on first use: hooks must start fast and never need it)."""
        if self._hub is None:
            from memoryhub_client import MemoryHub

            self._hub = MemoryHub(self.url, api_key=self.key)
        return self._hub

    def emit(self, data, human: str | None = None) -> None:
        if hasattr(data, "model_dump"):
            data = data.model_dump(mode="json", exclude_none=True)
        if self.as_json or human is None:
            click.echo(json.dumps(data, indent=None if self.as_json else 2, default=str, ensure_ascii=False))
        else:
            click.echo(human)


pass_ctx = click.make_pass_decorator(Context)


@click.group()
@click.option("--url", envvar="MEMORYHUB_URL", default=None, help="MemoryHub base URL (MEMORYHUB_URL).")
@click.option("--key", envvar="MEMORYHUB_API_KEY", default=None, help="API key (MEMORYHUB_API_KEY).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@click.option("--db", "use_db", is_flag=True, help="Act on the database with the server's settings, not the API.")
@click.pass_context
def cli(ctx, url, key, as_json, use_db):
    """Administer MemoryHub and move memory in and out."""
    if ctx.obj is None:  # tests hand in a prepared context
        ctx.obj = Context(url, key, as_json, use_db)


@cli.group()
def tenant():
    """Tenants (database mode)."""


@tenant.command("create")
@click.argument("slug")
@click.option("--name", default="", help="Display name (default: the slug).")
@click.option("--admin-key", is_flag=True, help="Also issue an admin API key for the new tenant.")
@pass_ctx
def tenant_create(ctx: Context, slug, name, admin_key):
    """Create tenant SLUG (database mode)."""
    if not ctx.use_db:
        raise click.UsageError("tenants are created in database mode: mhctl --db tenant create SLUG")
    data = db_mode.tenant_create(slug=slug, name=name or slug, admin_key=admin_key)
    ctx.emit(data, f"tenant {data['slug']} created" + (f"\nadmin key (shown once): {data['key']}" if admin_key else ""))


@cli.group()
def bank():
    """Banks."""


@bank.command("create")
@click.argument("slug")
@click.option("--name", default=None, help="Display name (default: the slug).")
@click.option("--description", default=None, help="What the bank holds.")
@click.option("--tenant", "tenant_slug", default=None, help="Tenant slug (database mode, or people in several).")
@pass_ctx
def bank_create(ctx: Context, slug, name, description, tenant_slug):
    """Create bank SLUG."""
    if ctx.use_db:
        data = db_mode.bank_create(tenant_slug=tenant_slug, slug=slug, name=name, description=description)
    else:
        data = ctx.hub.banks.create(slug, name=name, description=description, tenant=tenant_slug)
    ctx.emit(data, f"bank {slug} created")


@bank.command("list")
@pass_ctx
def bank_list(ctx: Context):
    """List the banks this key can reach."""
    banks = list(ctx.hub.paginate(ctx.hub.banks.list))
    ctx.emit([b.model_dump(mode="json") for b in banks], "\n".join(f"{b.slug}\t{b.name}" for b in banks))


@cli.group()
def key():
    """API keys."""


@key.command("create")
@click.argument("name")
@click.option("--bank", "bank_slug", default=None, help="Limit the key to one bank.")
@click.option(
    "--scope", "scopes", multiple=True, type=click.Choice(["read", "write", "review", "admin"]),
    help="Repeatable. review decides review items and records analyst verdicts; agent keys need not have it.",
)  # fmt: skip
@click.option(
    "--expires-in-days",
    type=click.IntRange(min=1),
    default=None,
    help="Days until the key stops working; without it: never, or the tenant's longest key lifetime.",
)
@click.option("--tenant", "tenant_slug", default=None, help="Tenant slug (database mode, or people in several).")
@pass_ctx
def key_create(ctx: Context, name, bank_slug, scopes, expires_in_days, tenant_slug):
    """Issue API key NAME (the secret is shown once)."""
    from datetime import UTC, datetime, timedelta

    scopes = list(scopes) or ["read", "write"]
    expires_at = datetime.now(UTC) + timedelta(days=expires_in_days) if expires_in_days else None
    if ctx.use_db:
        data = db_mode.key_create(tenant_slug=tenant_slug, name=name, bank_slug=bank_slug, scopes=scopes,
                                  expires_at=expires_at)  # fmt: skip
    else:
        data = ctx.hub.api_keys.issue(
            name, bank=bank_slug, scopes=scopes, expires_at=expires_at, tenant=tenant_slug
        ).model_dump(mode="json")
    ctx.emit(data, f"key {data['prefix']} ({', '.join(data['scopes'])}); secret, shown once:\n{data['key']}")


@key.command("revoke")
@click.argument("prefix")
@click.option("--tenant", "tenant_slug", default=None, help="Tenant slug (database mode, or people in several).")
@pass_ctx
def key_revoke(ctx: Context, prefix, tenant_slug):
    """Revoke the API key with PREFIX."""
    if ctx.use_db:
        db_mode.key_revoke(tenant_slug=tenant_slug, prefix=prefix)
    else:
        ctx.hub.api_keys.revoke(prefix, tenant=tenant_slug)
    ctx.emit({"prefix": prefix, "revoked": True}, f"key {prefix} revoked")


def _read_items(path: Path):
    """Retain items from JSONL (one item per line) or CSV (a header with ``content`` and other item fields)."""
    with path.open(newline="", encoding="utf-8") as handle:
        if path.suffix.lower() == ".csv":
            for row in csv.DictReader(handle):
                item = {k: v for k, v in row.items() if v not in (None, "")}
                if "metadata" in item:
                    item["metadata"] = json.loads(item["metadata"])
                yield item
            return
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except ValueError as exc:
                    raise click.ClickException(f"{path}:{number}: not valid JSON ({exc})") from None


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--bank", "bank_slug", required=True, help="Bank to retain into.")
@pass_ctx
def retain(ctx: Context, file: Path, bank_slug):
    """Retain a JSONL or CSV file of items, in batches (re-running it stores nothing twice)."""
    digest = hashlib.sha256(file.read_bytes()).hexdigest()[:16]
    items = list(_read_items(file))
    created = duplicates = 0
    with click.progressbar(length=len(items), label="retaining", file=sys.stderr) as bar:
        for start in range(0, len(items), RETAIN_BATCH):
            batch = items[start : start + RETAIN_BATCH]
            # One key per file and batch: a re-run replays instead of storing again.
            result = ctx.hub.retain(bank_slug, batch, idempotency_key=f"cli:{digest}:{start}")
            created += result.created
            duplicates += len(result.items) - result.created
            bar.update(len(batch))
    ctx.emit({"items": len(items), "created": created, "duplicates": duplicates},
             f"{len(items)} items: {created} created, {duplicates} already stored")  # fmt: skip


@cli.command()
@click.argument("query")
@click.option("--bank", "bank_slug", required=True, help="Bank to recall from.")
@click.option("--budget", "budget_tokens", type=int, default=512, show_default=True, help="Token budget of the answer.")
@pass_ctx
def recall(ctx: Context, query, bank_slug, budget_tokens):
    """Recall under a token budget."""
    answer = ctx.hub.recall(bank_slug, query, budget_tokens=budget_tokens)
    lines = [f"[{i.kind} {i.score:.3f}] {i.text}" for i in answer.items]
    lines.append(f"({answer.tokens_used}/{answer.budget_tokens} tokens, {answer.dropped_by_budget} left out)")
    ctx.emit(answer, "\n".join(lines))


@cli.command()
@click.argument("subject")
@click.option("--bank", "bank_slug", default=None, help="One bank; without it, the whole tenant (admin key).")
@click.option("--tenant", "tenant_slug", default=None, help="Tenant slug (database mode, or people in several).")
@pass_ctx
def erase(ctx: Context, subject, bank_slug, tenant_slug):
    """Erase every episode of SUBJECT and everything derived from them."""
    if ctx.use_db:
        data = db_mode.erase(tenant_slug=tenant_slug, bank_slug=bank_slug, subject=subject)
    else:
        data = ctx.hub.erasure_requests.create(subject, bank=bank_slug, tenant=tenant_slug).model_dump(mode="json")
    ctx.emit(data, f"erasure request {data['id']}: {data['status']}")


@cli.command("export")
@click.option("--bank", "bank_slug", required=True, help="Bank to export.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Default: stdout.")
@click.option("--no-embeddings", is_flag=True, help="Leave vectors out (smaller; the importer re-embeds).")
@pass_ctx
def export(ctx: Context, bank_slug, output, no_embeddings):
    """Export a bank as JSON lines."""
    target = output if output is not None else sys.stdout
    count = ctx.hub.portability.export_to(bank_slug, target, embeddings=not no_embeddings)
    if output is not None:
        ctx.emit({"bank": bank_slug, "lines": count, "file": str(output)}, f"{count} lines written to {output}")


@cli.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--bank", "bank_slug", required=True, help="Bank to import into.")
@click.option(
    "--format", "source_format", type=click.Choice(["memoryhub", "jsonl", "mem0"]), default="memoryhub",
    show_default=True, help="memoryhub: an export; jsonl: retain items; mem0: a mem0 export.",
)  # fmt: skip
@click.option(
    "--batch", "batch_lines", type=int, default=1000, show_default=True, help="Lines per all-or-nothing batch."
)
@click.option("--apply-settings", is_flag=True, help="Copy the export's bank policy and background (admin).")
@click.option(
    "--trust-file",
    is_flag=True,
    help="Take beliefs, facts, plays and review decisions from the file as they are (admin key; audited).",
)
@pass_ctx
def import_(ctx: Context, file: Path, bank_slug, source_format, batch_lines, apply_settings, trust_file):
    """Import an export, a JSONL of retain items, or a mem0 export."""
    total = sum(1 for _ in file.open("rb")) if source_format != "mem0" else None
    with click.progressbar(length=total or 1, label="importing", file=sys.stderr) as bar:
        seen = [0]

        def progress(done, totals):
            bar.update(done - seen[0])
            seen[0] = done

        result = ctx.hub.portability.import_file(
            bank_slug, file, format=source_format, batch_lines=batch_lines, apply_settings=apply_settings,
            trust_file=trust_file, progress=progress,
        )  # fmt: skip
    created = ", ".join(f"{n} {kind}" for kind, n in result.get("created", {}).items()) or "nothing new"
    ctx.emit(result, f"{result.get('lines', 0)} lines imported: {created}")


@cli.command(
    # --help goes to the MCP server's own parser, which lists every option it takes.
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
    short_help="Serve a bank over MCP: --bank SLUG [--transport stdio|http] (mhctl mcp --help for all options).",
)
@click.pass_context
def mcp(click_ctx):
    """Serve a bank over MCP. Options: --bank, --url, --transport, --host, --port, --allowed-host, --log-level;
    the bank key comes from MEMORYHUB_API_KEY and the HTTP bearer token from MEMORYHUB_MCP_TOKEN
    (see `mhctl mcp --help`)."""
    from memoryhub_client.mcp_server import main as mcp_main

    context: Context = click_ctx.obj
    args = list(click_ctx.args)
    if context.url and "--url" not in args:
        args += ["--url", context.url]
    if context.key:
        import os

        os.environ["MEMORYHUB_API_KEY"] = context.key
    mcp_main(args)


cli.add_command(hooks_group)
cli.add_command(hook_group)
cli.add_command(probe)


def _is_client_error(exc: Exception) -> bool:
    errors = sys.modules.get("memoryhub_client.errors")  # loaded only if the client was used
    return errors is not None and isinstance(exc, errors.MemoryHubError)


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="mhctl", standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        raise SystemExit(exc.exit_code) from None
    except click.exceptions.Abort:
        raise SystemExit(1) from None
    except Exception as exc:
        if not _is_client_error(exc):
            raise
        click.echo(json.dumps({"code": exc.code, "detail": exc.detail, "extra": exc.extra}) if "--json" in (
            argv if argv is not None else sys.argv) else f"error: {exc}", err=True)  # fmt: skip
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
