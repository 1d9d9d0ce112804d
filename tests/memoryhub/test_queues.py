"""Enqueueing by task name: after commit only, and services never import task modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.db import transaction

from beliefs.models import EpisodeExtraction, Fact
from beliefs.services.retain import RetainItem, retain
from memoryhub.celery import app
from memoryhub.queues import TaskName, UnknownTask, enqueue, enqueue_on_commit
from tests.helpers.callers import make_caller
from tests.helpers.processes import run_django_snippet

ROOT = Path(__file__).resolve().parents[2]


def test_every_task_name_is_registered():
    app.loader.import_default_modules()
    missing = [name for name in TaskName if str(name) not in app.tasks]
    assert missing == []


def test_an_unregistered_task_name_fails_loudly():
    with pytest.raises(UnknownTask):
        enqueue("beliefs.tasks.no_such_task", bank_id=1)


# A process that never imported any task module (a web process with eager tasks on). The broker URL points at a
# closed port: the task must run inline, never be published.
EAGER_PROCESS = """
import json, sys
import django
django.setup()
from memoryhub.queues import TaskName, enqueue
imported_before = "beliefs.tasks" in sys.modules
sent = enqueue(TaskName.EXTRACT_BANK, bank_id=BANK_ID)
print(json.dumps({"imported_before": imported_before, "sent": sent}))
"""


@pytest.mark.django_db(transaction=True)
def test_eager_mode_runs_the_task_inline_in_a_process_that_never_imported_it(monkeypatch):
    caller = make_caller()
    monkeypatch.setattr("memoryhub.queues.sending.enqueue", lambda *args, **kwargs: False)  # store only
    retain(bank=caller.bank, items=[RetainItem(content="Alice lives in Paris.")])
    assert EpisodeExtraction.objects.filter(bank=caller.bank, extracted_at__isnull=True).count() == 1
    out = run_django_snippet(
        EAGER_PROCESS.replace("BANK_ID", str(caller.bank.pk)),
        MEMORYHUB_EAGER_TASKS="1",
        REDIS_URL="redis://127.0.0.1:1/0",
    )
    assert out == {"imported_before": False, "sent": True}
    assert EpisodeExtraction.objects.filter(bank=caller.bank, extracted_at__isnull=True).count() == 0
    assert Fact.objects.filter(bank=caller.bank, object_key="paris").count() == 1


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
        "memoryhub.queues.sending.enqueue",
        lambda task, countdown=None, tenant_id=None, **kwargs: sent.append((task, kwargs)),
    )

    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue_on_commit(TaskName.EXTRACT_BANK, bank_id=1)
        raise RuntimeError("rolled back")
    assert sent == []

    with transaction.atomic():
        enqueue_on_commit(TaskName.EXTRACT_BANK, bank_id=2)
        assert sent == []
    assert sent == [(TaskName.EXTRACT_BANK, {"bank_id": 2})]


def test_stacks_on_one_redis_server_keep_their_keys_apart(tmp_path):
    """Two data directories name two key prefixes; a task this stack sends lands under its own prefix only, and
    the queue depths it reports read those keys (a second checkout's workers cannot take its erasure tasks)."""
    import redis
    from django.conf import settings

    from memoryhub.devservers import stack_key_prefix
    from memoryhub.queues.broker import queue_depths, redis_key
    from memoryhub.queues.routing import Queue

    assert stack_key_prefix(tmp_path / "a") != stack_key_prefix(tmp_path / "b")
    assert stack_key_prefix(tmp_path / "a") == stack_key_prefix(tmp_path / "a")
    assert settings.REDIS_KEY_PREFIX == stack_key_prefix(settings.DATA_DIR)

    client = redis.Redis.from_url(settings.REDIS_URL)
    probe_queue = "prefix-probe"
    client.delete(probe_queue, redis_key(probe_queue))
    try:
        app.send_task("memoryhub.prefix_probe", queue=probe_queue)
        assert client.llen(redis_key(probe_queue)) == 1
        assert client.exists(probe_queue) == 0
    finally:
        client.delete(probe_queue, redis_key(probe_queue))

    queue = str(next(iter(Queue)))
    before = queue_depths()[queue]
    client.rpush(queue, "not this stack's")
    client.rpush(redis_key(queue), "this stack's")
    try:
        assert queue_depths()[queue] == before + 1
    finally:
        client.lrem(queue, 1, "not this stack's")
        client.lrem(redis_key(queue), 1, "this stack's")
