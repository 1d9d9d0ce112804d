"""Test settings: the same real services, but a Redis database of their own.

A developer's running worker (``make run``, Redis database 0) must not take the test
suite's tasks, nor the test worker the developer's.
"""

import os

os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
# Test code reads tables directly (fixtures, assertions); API requests switch row-level security back on.
os.environ.setdefault("MEMORYHUB_DB_RLS_BYPASS", "1")

from memoryhub.settings import *  # noqa: E402,F403

CELERY_BEAT_SCHEDULE = {}
