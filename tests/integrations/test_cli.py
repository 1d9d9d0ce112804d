"""The ``mhctl`` command line: database mode for bootstrapping, API mode through the client, --json output."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from banks.models import ApiKey, Bank, Tenant
from beliefs.models import Episode, ErasureRequest
from mhctl.main import Context, cli
from tests.helpers.callers import make_caller


@pytest.fixture
def run(hub):
    def invoke(*args, use_db=False, as_json=True, client=None):
        context = Context(None, None, as_json, use_db)
        context._hub = client or hub
        result = CliRunner().invoke(cli, list(args), obj=context, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout) if as_json and result.stdout.strip() else result.stdout

    return invoke


def test_database_mode_bootstraps_a_tenant_its_bank_and_keys(run, hub_for, db):
    created = run("tenant", "create", "acme", "--name", "Acme", "--admin-key", use_db=True)
    assert (
        created["slug"] == "acme"
        and created["key"].startswith("mh_")
        and sorted(created["scopes"]) == ["admin", "read", "write"]
    )
    bank = run("bank", "create", "support", "--tenant", "acme", use_db=True)
    assert bank == {"slug": "support", "name": "support", "tenant": "acme"}
    reader = run("key", "create", "reader", "--tenant", "acme", "--bank", "support", "--scope", "read", use_db=True)
    assert reader["bank"] == "support" and reader["scopes"] == ["read"]
    # The admin key works against the API at once.
    admin = hub_for(created["key"])
    assert [b.slug for b in admin.banks.list().results] == ["support"]
    run("key", "revoke", reader["prefix"], "--tenant", "acme", use_db=True)
    assert ApiKey.objects.get(prefix=reader["prefix"]).revoked_at is not None
    assert Tenant.objects.get(slug="acme").name == "Acme" and Bank.objects.filter(tenant__slug="acme").count() == 1


def test_api_mode_retains_csv_and_jsonl_recalls_erases_and_moves_a_bank(run, caller, hub_for, tmp_path):
    csv_file = tmp_path / "notes.csv"
    csv_file.write_text(
        "content,subject,occurred_at,metadata\n"
        'Dana renewed the Pro plan,user:dana,2026-05-01T10:00:00Z,"{""plan"": ""pro""}"\n'
        "Sam asked about invoices,user:sam,2026-05-02T10:00:00Z,\n"
    )
    first = run("retain", str(csv_file), "--bank", caller.bank.slug)
    again = run("retain", str(csv_file), "--bank", caller.bank.slug)
    assert first == {"items": 2, "created": 2, "duplicates": 0} and again["created"] == 0
    assert Episode.objects.get(bank=caller.bank, subject="user:dana").metadata == {"plan": "pro"}
    jsonl = tmp_path / "more.jsonl"
    jsonl.write_text(json.dumps({"content": "Dana called about the Berlin office", "subject": "user:dana"}) + "\n")
    assert run("retain", str(jsonl), "--bank", caller.bank.slug)["created"] == 1

    answer = run("recall", "what plan did Dana renew?", "--bank", caller.bank.slug, "--budget", "60")
    assert answer["items"][0]["text"] == "Dana renewed the Pro plan" and answer["tokens_used"] <= 60
    human = run("recall", "invoices", "--bank", caller.bank.slug, as_json=False)
    assert "Sam asked about invoices" in human and "/512 tokens" in human

    exported = tmp_path / "bank.jsonl"
    assert run("export", "--bank", caller.bank.slug, "-o", str(exported))["lines"] == 4  # header + 3 episodes
    target = make_caller()
    moved = run("import", str(exported), "--bank", target.bank.slug, client=hub_for(target.raw_key))
    assert moved["created"] == {"episode": 3}

    erased = run("erase", "user:dana", "--bank", caller.bank.slug)
    assert erased["status"] == "pending" and ErasureRequest.objects.get(pk=erased["id"]).subject == "user:dana"


def test_database_mode_erases_in_process(run, caller):
    from beliefs.services.retain import RetainItem, retain

    retain(bank=caller.bank, items=[RetainItem(content="Dana's address", subject="user:dana")])
    done = run("erase", "user:dana", "--tenant", caller.tenant.slug, "--bank", caller.bank.slug, use_db=True)
    assert done["status"] == "done" and done["receipt"]["removed"]["episodes"] == 1
    assert not Episode.objects.filter(bank=caller.bank).exists()


def test_errors_exit_non_zero_with_the_code_in_json(caller):
    result = subprocess.run(
        [sys.executable, "-m", "mhctl.main", "--json", "--url", "http://127.0.0.1:9", "--key", "mh_x",
         "recall", "q", "--bank", "ops"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2 and json.loads(result.stderr)["code"] == "transport_error"
    usage = subprocess.run([sys.executable, "-m", "mhctl.main", "tenant", "create", "x"],
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert usage.returncode == 2 and "database mode" in usage.stderr
