"""Enqueueing by task name: after commit only, and services never import task modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.db import transaction

from memoryhub.celery import app
from memoryhub.queues import TaskName, enqueue_on_commit

ROOT = Path(__file__).resolve().parents[2]


def test_every_task_name_is_registered():
    app.loader.import_default_modules()
    missing = [name for name in TaskName if str(name) not in app.tasks]
    assert missing == []


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("package", ["beliefs/services", "beliefs/workloads", "banks/services", "reviews/services"])
def test_services_do_not_import_tasks(package):
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / package).rglob("*.py")
        if any(name.endswith(".tasks") or name == "tasks" for name in _imports(path))
    ]
    assert offenders == []


@pytest.mark.django_db(transaction=True)
def test_enqueue_waits_for_commit_and_rollback_sends_nothing(monkeypatch):
    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(
        "memoryhub.queues.enqueue", lambda task, countdown=None, tenant_id=None, **kwargs: sent.append((task, kwargs))
    )

    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue_on_commit(TaskName.EXTRACT_BANK, bank_id=1)
        raise RuntimeError("rolled back")
    assert sent == []

    with transaction.atomic():
        enqueue_on_commit(TaskName.EXTRACT_BANK, bank_id=2)
        assert sent == []
    assert sent == [(TaskName.EXTRACT_BANK, {"bank_id": 2})]
