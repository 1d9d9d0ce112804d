"""Shared fixtures (helpers they build on live in ``tests/helpers/``).

Tests run on the real embedded PostgreSQL+pgvector and a real Redis.
"""

from __future__ import annotations

import httpx
import pytest
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from memoryhub_client import AsyncMemoryHub, MemoryHub

from banks.permissions import Role
from memoryhub.devservers import ensure_redis
from tests.helpers.builders import OpsBank, build_ops_bank
from tests.helpers.callers import Caller, make_caller, retain_texts
from tests.helpers.clients import AsyncWSGITransport
from tests.helpers.queues import forget_queue_state

__all__ = ["Caller", "make_caller", "retain_texts", "forget_queue_state"]  # older imports from here keep working


def pytest_addoption(parser):
    parser.addoption(
        "--update-query-counts",
        action="store_true",
        help="write the measured SQL query counts to tests/query_counts.json instead of comparing (tests.helpers)",
    )


def pytest_collection_modifyitems(items):
    """Marks by cost, so ``make test-fast`` can leave them out: ``live_server`` on every test that serves the app
    over HTTP (pytest-django's ``live_server``, browser tests aside), ``fuzz`` on the schema and recall fuzzers."""
    for item in items:
        if "live_server" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.live_server)
        if item.path.parent.name == "fuzz" or item.path.stem.endswith("_fuzz"):
            item.add_marker(pytest.mark.fuzz)


@pytest.fixture(scope="session", autouse=True)
def _local_redis():
    ensure_redis(settings.REDIS_URL, settings.DATA_DIR)
    forget_queue_state()


@pytest.fixture(autouse=True)
def _fresh_person_and_address_windows():
    """Per-person and per-address rate windows start empty in each test (every test client is 127.0.0.1)."""
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL)
    from memoryhub.queues.broker import redis_key

    patterns = (redis_key("memoryhub:rate*auth:*"), redis_key("memoryhub:rate*user:*"))
    keys = [key for pattern in patterns for key in client.scan_iter(pattern)]
    if keys:
        client.delete(*keys)


@pytest.fixture(autouse=True)
def _fresh_recall_process_caches():
    """Per-process recall caches (bank sizes, recent query vectors) start empty in each test, as in a new process."""
    from beliefs.services.recall import stages
    from memoryhub.embeddings import query_cache_clear

    stages._sizes.clear()
    query_cache_clear()


@pytest.fixture(scope="session", autouse=True)
def _close_recall_threads(django_db_setup, django_db_blocker):
    """Parallel recall keeps a connection per channel thread; close them before the test database is dropped."""
    yield
    from beliefs.services.recall.runner import channel_runner

    channel_runner().close_connections()


@pytest.fixture
def caller(db) -> Caller:
    return make_caller()


@pytest.fixture
def other_caller(db) -> Caller:
    """A second, unrelated tenant."""
    return make_caller()


@pytest.fixture
def eager_tasks():
    """Run enqueued tasks inline for one test (the real-worker tests live in tests/beliefs/tasks)."""
    from memoryhub.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def seeded_caller(caller) -> Caller:
    """A caller whose bank holds 60 episodes of random lengths (2 to ~400 tokens)."""
    import random

    rng = random.Random(7)
    words = "disk latency backup alert host db web cache churn discount account renewal outage deploy".split()
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(2, 300))) + f" #{n}" for n in range(60)]
    retain_texts(caller.bank, texts)
    return caller


# The Python client against the app in process (no network).


@pytest.fixture
def wsgi_app(db):
    """Django's WSGI handler, without the per-request connection recycling that would end the test transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield WSGIHandler()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def hub_for(wsgi_app, sleeps):
    """``hub_for(raw_key, **options)``: a sync client for a key, recording its retry waits instead of sleeping."""
    clients = []

    def make(raw_key: str, **options) -> MemoryHub:
        hub = MemoryHub(
            "http://testserver",
            api_key=raw_key,
            transport=httpx.WSGITransport(app=wsgi_app),
            sleep=sleeps.append,
            **options,
        )
        clients.append(hub)
        return hub

    yield make
    for hub in clients:
        hub.close()


@pytest.fixture
def hub(hub_for, caller) -> MemoryHub:
    return hub_for(caller.raw_key)


@pytest.fixture
def async_hub(wsgi_app, caller, sleeps) -> AsyncMemoryHub:
    """Drive it with ``async_to_sync(coroutine)()`` (see ``AsyncWSGITransport``)."""

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    return AsyncMemoryHub(
        "http://testserver", api_key=caller.raw_key, transport=AsyncWSGITransport(wsgi_app), sleep=record
    )


# The dashboard: a bank with one person per role, and clients signed in as each.


@pytest.fixture
def ops(db) -> OpsBank:
    return build_ops_bank()


@pytest.fixture
def client_as(ops):
    """``client_as(Role.REVIEWER)``: a Django test client signed in as that person.

    CSRF checks are off here so tests can post forms directly; every form's refusal without the token is tested
    with ``Client(enforce_csrf_checks=True)`` (``tests/web/test_page_isolation.py``).
    """

    def make(role: Role) -> Client:
        client = Client(enforce_csrf_checks=False)
        client.force_login(ops.users[role])
        return client

    return make
