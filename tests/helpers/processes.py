"""Run a snippet of Django code in a process of its own, against the test database, and read its answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def run_django_snippet(code: str, **env: str):
    """Run ``code`` with ``python -c`` on the test database; return the JSON its last line of output printed.

    ``env`` adds or overrides environment variables (``MEMORYHUB_DB_CONNECT_AS``, ``REDIS_URL``, …).
    """
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "memoryhub.settings",
            "MEMORYHUB_DB_NAME": connection.settings_dict["NAME"],
            "MEMORYHUB_LOG_LEVEL": "WARNING",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
