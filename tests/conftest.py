"""Shared fixtures. Tests run on the real embedded PostgreSQL+pgvector and a real Redis."""

from __future__ import annotations

import pytest
from django.conf import settings

from memoryhub.devservers import ensure_redis
from tests.helpers.callers import Caller, make_caller, retain_texts
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
    keys = [*client.scan_iter("memoryhub:rate*auth:*"), *client.scan_iter("memoryhub:rate*user:*")]
    if keys:
        client.delete(*keys)


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
