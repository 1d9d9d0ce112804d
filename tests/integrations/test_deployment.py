"""The production compose file: validated by `docker compose config` where the plugin exists, and read here always."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from memoryhub.queues import WORKERS, Queue

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "compose.yaml"
SECRETS = ("POSTGRES_PASSWORD", "MEMORYHUB_DB_PASSWORD", "MEMORYHUB_MAINTENANCE_DB_PASSWORD", "DJANGO_SECRET_KEY",
           "MEMORYHUB_METRICS")  # fmt: skip
LONG_RUNNING = {"db", "redis", "web", "worker", "worker-interactive", "worker-erasure", "worker-defense", "beat"}


def _compose_command() -> list[str] | None:
    """``docker compose`` (the plugin), else the standalone ``docker-compose``; None when neither is installed."""
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True,
                                                 timeout=30).returncode == 0:  # fmt: skip
        return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


@pytest.mark.skipif(
    _compose_command() is None,
    reason="neither the docker compose plugin nor docker-compose is installed here (only the docker client is)",
)
def test_docker_compose_config_accepts_the_file_and_refuses_missing_secrets(tmp_path):
    command = [*_compose_command(), "-f", str(COMPOSE), "config", "--quiet"]
    env = {**os.environ, **{name: "x" * 24 for name in SECRETS}}
    ok = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    missing = {k: v for k, v in env.items() if k != "DJANGO_SECRET_KEY"}
    refused = subprocess.run(command, env=missing, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "DJANGO_SECRET_KEY" in refused.stderr


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_every_long_running_service_has_a_health_check_and_migrations_run_once_first(compose):
    services = compose["services"]
    assert LONG_RUNNING | {"migrate"} == set(services)
    assert all("healthcheck" in services[name] for name in LONG_RUNNING)
    assert services["db"]["image"].startswith("pgvector/pgvector:")
    migrate = services["migrate"]
    assert migrate["restart"] == "no" and migrate["command"][-2:] == ["migrate", "--noinput"]
    for name in LONG_RUNNING - {"db", "redis"}:
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name
    assert "gunicorn" in services["web"]["command"]


def test_each_queue_has_its_workers_and_beat_runs_alone(compose):
    consumed = {}
    for name, service in compose["services"].items():
        command = service.get("command") or []
        if "worker" in command:
            assert "--beat" not in command, f"{name}: beat is its own service"
            consumed[name] = set(command[command.index("-Q") + 1].split(","))
    assert set().union(*consumed.values()) == {str(q) for q in Queue}
    # The same queue groups as the workers `make run` starts.
    assert sorted(map(sorted, consumed.values())) == sorted(sorted(map(str, w.queues)) for w in WORKERS)
    assert [n for n, s in compose["services"].items() if "beat" in (s.get("command") or [])[:4]] == ["beat"]


def test_no_secret_is_written_into_the_compose_file_or_the_image():
    text = COMPOSE.read_text()
    for name in SECRETS:
        uses = re.findall(rf"\$\{{{name}([^}}]*)\}}", text)
        assert uses and all(use.startswith(":?") for use in uses), f"{name} must be required, without a default"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert not re.search(r"^ENV .*(SECRET|PASSWORD)", dockerfile, re.M)
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".env", ".data", ".git"} <= set(ignored)
    init = (ROOT / "deploy/initdb/10-memoryhub-roles.sh").read_text()
    assert "NOBYPASSRLS" in init and "PASSWORD :'" in init  # passwords from the environment, not the file


def test_gunicorn_is_reachable_from_the_host_only_and_believes_forwarded_headers_from_the_proxy_only(compose):
    """Port 8000 on the host's loopback (the TLS proxy's side), never on every interface; the proxy's
    X-Forwarded-* headers are believed from the addresses both gunicorn and Django read."""
    web = compose["services"]["web"]
    assert web["ports"] == ["${MEMORYHUB_HOST_ADDRESS:-127.0.0.1}:${MEMORYHUB_PORT:-8000}:8000"]
    allowed = web["environment"]["MEMORYHUB_FORWARDED_ALLOW_IPS"]
    assert allowed.startswith("${MEMORYHUB_FORWARDED_ALLOW_IPS:-127.0.0.1,::1,")
    assert "*" not in allowed and "0.0.0.0" not in allowed
    import importlib

    from memoryhub import gunicorn_conf

    assert gunicorn_conf.forwarded_allow_ips == "127.0.0.1,::1"  # the default outside compose: loopback only
    os.environ["MEMORYHUB_FORWARDED_ALLOW_IPS"] = "10.1.2.3"
    try:
        assert importlib.reload(gunicorn_conf).forwarded_allow_ips == "10.1.2.3"
    finally:
        del os.environ["MEMORYHUB_FORWARDED_ALLOW_IPS"]
        importlib.reload(gunicorn_conf)
