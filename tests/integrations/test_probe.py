"""``mhctl probe`` against a live server: it passes, cleans up, and names the check whose protection is off.

The probe runs in this process (click's runner) against the live server's thread, so a
protection switched off with ``monkeypatch`` is off in the server the probe talks to. This
is also the CI run of the probe (see .ci/run).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from rest_framework import views

from banks.models import Bank
from beliefs.models import Episode
from mhctl.main import Context, cli
from mhctl.probe.commands import CHECK_NAMES
from tests.helpers.callers import make_caller


def probe(url: str, key_a: str, key_b: str, tmp_path, *checks: str) -> tuple[int, dict, str]:
    out = tmp_path / "probe.json"
    args = ["probe", "--key-a", key_a, "--key-b", key_b, "--json-out", str(out), "--wait", "60"]
    for check in checks:
        args += ["--check", check]
    result = CliRunner().invoke(cli, args, obj=Context(url, None, False, False), catch_exceptions=False)
    return result.exit_code, json.loads(out.read_text()), result.output


@pytest.fixture
def two_tenants(transactional_db, live_server, eager_tasks):
    return live_server.url, make_caller(), make_caller()


def statuses(report: dict) -> dict[str, str]:
    return {check["name"]: check["status"] for check in report["checks"]}


def test_probe_passes_against_a_live_server_and_leaves_nothing_behind(two_tenants, tmp_path):
    url, a, b = two_tenants
    banks_before = set(Bank.objects.values_list("slug", flat=True))

    code, report, output = probe(url, a.raw_key, b.raw_key, tmp_path)

    assert code == 0, output
    assert statuses(report) == {"setup": "pass", **dict.fromkeys(CHECK_NAMES, "pass"), "cleanup": "pass"}
    assert report["passed"] is True and report["target"] == url
    isolation = next(c for c in report["checks"] if c["name"] == "isolation")
    schema = next(c for c in report["checks"] if c["name"] == "schema")
    assert int(schema["detail"].split(", ")[1].split()[0]) >= 40  # every bank operation of the schema ...
    assert int(isolation["detail"].split()[0]) >= 80  # ... was sent by key B (and key A the other way)
    assert "PASSED" in output and "isolation" in output and "fence" in output
    assert set(Bank.objects.values_list("slug", flat=True)) == banks_before
    assert not Episode.objects.filter(subject__startswith="mhprobe").exists()


def _no_fence(monkeypatch):
    monkeypatch.setattr("beliefs.engine.rendering._neutralised", lambda text: text)


def _no_tenant_check(monkeypatch):
    """Both places ``banks.scoping`` decides what a caller reaches: people's querysets and a key's compiled lookup."""
    monkeypatch.setattr("banks.scoping.banks_for_caller", lambda request, access="read": Bank.objects.all())
    monkeypatch.setattr("banks.scoping._key_banks", lambda api_key, slug: list(Bank.objects.filter(slug=slug)))


def _no_budget(monkeypatch):
    import beliefs.services.recall.stages as stages

    original = stages.pack_greedy
    monkeypatch.setattr(stages, "pack_greedy", lambda drafts, *, budget_tokens, **kw: original(
        drafts, budget_tokens=budget_tokens * 50, **kw))  # fmt: skip


def _no_erasure(monkeypatch):
    monkeypatch.setattr("beliefs.services.forget.subjects.episodes_delete", lambda **kwargs: {})


def _no_rate_headers(monkeypatch):
    monkeypatch.setattr("banks.throttling.RateLimitHeadersMiddleware.__call__",
                        lambda self, request: self.get_response(request))  # fmt: skip


def _plain_drf_errors(monkeypatch):
    """Errors keep their status but lose the stable ``code`` (DRF's plain ``{"detail": ...}``)."""
    original = views.APIView.get_exception_handler

    def handler(self):
        def plain(exc, context):
            response = original(self)(exc, context)
            if response is not None and isinstance(response.data, dict):
                response.data = {"detail": response.data.get("detail", "")}
            return response

        return plain

    monkeypatch.setattr(views.APIView, "get_exception_handler", handler)


@pytest.mark.parametrize(
    ("check", "switch_off", "finding"),
    [
        pytest.param("fence", _no_fence, "not datamarked", id="fence"),
        pytest.param("isolation", _no_tenant_check, "key B GET", id="isolation"),
        pytest.param("budget", _no_budget, "tokens_used", id="budget"),
        pytest.param("erasure", _no_erasure, "still shows the erased subject", id="erasure"),
        pytest.param("rate_limit_headers", _no_rate_headers, "no X-RateLimit-Limit", id="rate_limit_headers"),
        pytest.param("json_errors", _plain_drf_errors, "without 'code' and 'detail'", id="json_errors"),
    ],
)
def test_probe_fails_naming_the_check_whose_protection_is_switched_off(
    two_tenants, tmp_path, monkeypatch, check, switch_off, finding
):
    url, a, b = two_tenants
    switch_off(monkeypatch)

    code, report, output = probe(url, a.raw_key, b.raw_key, tmp_path, check)

    assert code == 1
    assert statuses(report) == {"setup": "pass", "schema": "pass", check: "fail", "cleanup": "pass"}
    failed = next(c for c in report["checks"] if c["name"] == check)
    assert any(finding in failure for failure in failed["failures"]), failed
    assert f"{check}" in output and "FAIL" in output and "FAILED" in output


def test_with_the_fence_off_every_other_check_still_passes(two_tenants, tmp_path, monkeypatch):
    url, a, b = two_tenants
    _no_fence(monkeypatch)
    code, report, _ = probe(url, a.raw_key, b.raw_key, tmp_path)
    assert code == 1
    assert [name for name, status in statuses(report).items() if status != "pass"] == ["fence"]
