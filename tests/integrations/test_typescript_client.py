"""The TypeScript client (``clients/typescript``) against a live server, through Node's own test runner.

``make setup`` installs Node and the package's devDependencies (``npm ci``); this test
builds the package with ``tsc``, starts a live server with a tenant, an admin key, a seeded
bank and a rate-limited key, and runs ``node --test`` with them in the environment. It
fails with Node's output when any Node test fails, and then checks that the Node tests
called every route of the API through the client. A second test regenerates the
TypeScript types from the live OpenAPI schema and compares them with ``src/schema.ts``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator

from banks.services.api_keys import api_key_issue
from banks.services.banks import bank_create, tenant_create
from tests.helpers.consolidation import T0, days, dismissal, remember
from tests.integrations.test_contract import _server_codes

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clients/typescript"
SCHEMA_TS = PACKAGE / "src/schema.ts"


def _node_ready() -> dict:
    """The environment for npm/node, with the package's devDependencies installed (offline after the first time)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("node and npm are missing: run `make setup` (it installs Debian's nodejs and npm)")
    env = {**os.environ, "NO_UPDATE_NOTIFIER": "1", "npm_config_fund": "false", "npm_config_audit": "false"}
    installed = PACKAGE / "node_modules/.package-lock.json"
    lock = PACKAGE / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        _run(["npm", "ci", "--prefer-offline"], env, timeout=300)
    return env


def _run(command: list[str], env: dict, *, timeout: float = 120) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=PACKAGE, env=env, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        pytest.fail(f"`{' '.join(command)}` failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def _documented_codes() -> set[str]:
    """Codes the server declares as exception classes, plus those written by its middleware and gunicorn hooks."""
    codes = set(_server_codes())
    for module in ("memoryhub/unavailable.py", "memoryhub/gunicorn_conf.py"):
        text = (ROOT / module).read_text()
        codes |= set(re.findall(r'"code":\s*"([a-z_]+)"', text)) | set(re.findall(r'\d{3}:\s*"([a-z_]+)"', text))
    return codes


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def test_typescript_types_are_the_ones_generated_from_the_live_schema(schema, tmp_path):
    env = _node_ready()
    source = tmp_path / "openapi.json"
    source.write_text(json.dumps(schema, indent=2))
    generated = tmp_path / "schema.ts"
    _run(["node", "scripts/generate-schema.mjs", str(source), str(generated)], env)
    assert generated.read_text() == SCHEMA_TS.read_text(), (
        "clients/typescript/src/schema.ts is out of date with /api/schema/: run `make client-models`"
    )


@pytest.fixture
def stage(request, transactional_db, live_server, tmp_path):
    """A tenant with an admin key, a bank whose three dismissals formed one belief, and a 1-per-minute key.

    Background tasks run inline for the server's requests; the seeding runs before that, at its own
    ``now`` (an inline chain would consolidate it at today's date, when the January belief is stale).
    """
    tenant = tenant_create(slug="node", name="Node tests")
    seeded = bank_create(tenant=tenant, slug="seeded", name="Seeded")
    remember(seeded, [dismissal("DiskLatencyHigh", "db-1", T0 + days(n)) for n in range(3)])
    request.getfixturevalue("eager_tasks")
    admin = api_key_issue(tenant=tenant, name="node tests", scopes=["read", "write", "admin"]).raw_key
    limited = api_key_issue(tenant=tenant, name="tight", rate_limit_per_minute=1).raw_key
    routes = tmp_path / "routes.log"
    routes.touch()
    env = {
        **_node_ready(),
        "MEMORYHUB_URL": live_server.url,
        "MEMORYHUB_API_KEY": admin,
        "MEMORYHUB_SEEDED_BANK": seeded.slug,
        "MEMORYHUB_LIMITED_KEY": limited,
        "MEMORYHUB_ERROR_CODES": json.dumps(sorted(_documented_codes())),
        "MEMORYHUB_ROUTE_LOG": str(routes),
    }
    return env, routes


def test_typescript_client_against_a_live_server(stage, schema):
    env, routes = stage
    _run(["npx", "tsc", "-p", "tsconfig.json"], env)
    result = subprocess.run(
        ["node", "--test", "--test-concurrency=1", "--test-reporter=spec", "test/"],
        cwd=PACKAGE,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = f"{result.stdout}\n{result.stderr}"
    assert result.returncode == 0, f"Node tests failed:\n{output}"
    passed = re.search(r"^\S+ pass (\d+)$", output, re.M)
    assert passed and int(passed.group(1)) >= 20 and re.search(r"^\S+ fail 0$", output, re.M), output

    # Every route of the API was called through the client by some Node test.
    called = {tuple(line.split(" ", 1)) for line in routes.read_text().splitlines() if line}
    missing = []
    for path, operations in schema["paths"].items():
        pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")
        for method in operations:
            if method in {"get", "post", "patch", "put", "delete"} and not any(
                m == method.upper() and pattern.match(p) for m, p in called
            ):
                missing.append(f"{method.upper()} {path}")
    assert missing == [], f"no Node test calls these routes through the client: {missing}"
