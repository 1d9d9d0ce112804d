"""A dependency that is down: PostgreSQL answers 503 JSON quickly; Redis down loses nothing and fails nothing."""

from __future__ import annotations

import time

import psycopg
import pytest
import redis
from django.db import connection

from beliefs.models import Episode, RetainBatch
from beliefs.tasks import requeue_stalled_batches_task
from memoryhub.devservers import ensure_redis, redis_started_here
from tests.helpers.callers import make_caller


@pytest.fixture
def database_down():
    """Point the default connection at a port where nothing listens, as when PostgreSQL is restarting."""
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT="1")
    yield
    connection.close()
    connection.settings_dict.clear()
    connection.settings_dict.update(saved)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "retain", {"items": [{"content": "written while the database was down"}]}),
        ("post", "recall", {"query": "anything", "budget_tokens": 100}),
        ("get", "beliefs/", None),
        ("get", "", None),
    ],
)
def test_request_while_the_database_is_down_answers_503_json_quickly(request, method, path, body):
    caller = make_caller()
    request.getfixturevalue("database_down")
    started = time.monotonic()
    response = getattr(caller.client, method)(caller.url(path), body, format="json")
    elapsed = time.monotonic() - started

    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == "database_unavailable"
    assert response["Retry-After"] == "5"
    assert elapsed < 10


@pytest.mark.django_db(transaction=True)
def test_health_and_anonymous_routes_answer_503_not_500_while_the_database_is_down(database_down):
    from rest_framework.test import APIClient

    client = APIClient()
    assert client.get("/healthz").status_code == 503
    response = client.get("/api/v1/banks/", HTTP_AUTHORIZATION="Bearer mh_nosuchkey")
    assert (response.status_code, response.json()["code"]) == (503, "database_unavailable")


@pytest.mark.django_db(transaction=True)
def test_nothing_is_half_written_when_the_database_fails_mid_request():
    caller = make_caller()
    victim = make_caller()
    with connection.cursor() as cursor:  # the request's own session is cut, as a PostgreSQL restart does
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]

    def cut(execute, sql, params, many, context):
        if "INSERT" in sql and "beliefs_episode" in sql:
            known = connection.get_connection_params()
            dsn = {key: known[key] for key in ("dbname", "user", "host", "port") if known.get(key)}
            with psycopg.connect(**dsn, autocommit=True) as other:
                other.execute("SELECT pg_terminate_backend(%s)", [pid])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(cut):
        response = victim.client.post(
            victim.url("retain"), {"items": [{"content": f"row {n}"} for n in range(5)]}, format="json"
        )
    assert response.status_code == 503
    connection.close()
    assert not Episode.objects.filter(bank=victim.bank).exists()
    assert not RetainBatch.objects.filter(bank=victim.bank).exists()
    assert caller.client.post(caller.url("retain"), {"items": [{"content": "later"}]}, format="json").status_code == 201


@pytest.mark.django_db(transaction=True)
def test_while_redis_is_down_retains_are_stored_and_their_work_is_requeued_after(eager_tasks, settings):
    from memoryhub.celery import app

    if not redis_started_here(settings.REDIS_URL, settings.DATA_DIR):
        # (stopping it would take it from the stack that runs it: a development server of another checkout)
        pytest.skip("the Redis on this port was not started by this checkout, so it is not this test's to stop")
    caller = make_caller()
    app.conf.task_always_eager = False
    redis.Redis.from_url(settings.REDIS_URL).shutdown(nosave=True)
    try:
        started = time.monotonic()
        sync = caller.client.post(caller.url("retain"), {"items": [{"content": "sync while down"}]}, format="json")
        queued = caller.client.post(
            caller.url("retain"), {"items": [{"content": "async while down"}], "async": True}, format="json"
        )
        recall = caller.client.post(caller.url("recall"), {"query": "while down", "budget_tokens": 100}, format="json")
        elapsed = time.monotonic() - started
    finally:
        ensure_redis(settings.REDIS_URL, settings.DATA_DIR)
        app.conf.task_always_eager = True

    assert (sync.status_code, queued.status_code, recall.status_code) == (201, 202, 200)
    assert elapsed < 10
    assert "sync while down" in [item["text"] for item in recall.json()["items"]]
    batch = RetainBatch.objects.get(pk=queued.json()["batch_id"])
    assert batch.status == "pending"  # accepted: the row is the truth, the lost message is re-sent
    settings.MEMORYHUB = {**settings.MEMORYHUB, "STALLED_AFTER_SECONDS": 0}
    assert requeue_stalled_batches_task.apply().result == {"requeued": 1}
    assert list(Episode.objects.filter(bank=caller.bank).order_by("id").values_list("content", flat=True)) == [
        "sync while down",
        "async while down",
    ]


def test_a_redis_is_this_checkouts_only_when_its_pid_file_names_the_server_that_answers(settings, tmp_path):
    served = redis.Redis.from_url(settings.REDIS_URL).info("server")["process_id"]
    assert not redis_started_here(settings.REDIS_URL, tmp_path)  # (no pid file: another checkout's, or the system's)
    (tmp_path / "redis").mkdir()
    (tmp_path / "redis" / "redis.pid").write_text(f"{served + 1}\n")
    assert not redis_started_here(settings.REDIS_URL, tmp_path)
    (tmp_path / "redis" / "redis.pid").write_text(f"{served}\n")
    assert redis_started_here(settings.REDIS_URL, tmp_path)
    assert not redis_started_here("redis://127.0.0.1:1/0", tmp_path)  # (nothing answers there)
