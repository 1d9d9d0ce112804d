"""Test settings: the same real services, but a Redis database of their own.

A developer's running worker (``make run``, Redis database 0) must not take the test
suite's tasks, nor the test worker the developer's.
"""

import os

os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
# Test code reads tables directly (fixtures, assertions), so it connects as the maintenance role; API requests
# and tasks drop to the request role for themselves (memoryhub.tenancy).
os.environ.setdefault("MEMORYHUB_DB_CONNECT_AS", "maintenance")

from memoryhub.settings import *  # noqa: E402,F403

CELERY_BEAT_SCHEDULE = {}
# People are created by the dozen in tests; the production hasher's cost buys nothing there.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
