"""Local Redis for development, tests and the demo: reuse one that answers, else start one."""

from __future__ import annotations

import hashlib
import logging
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import urlparse

import redis

logger = logging.getLogger(__name__)


def stack_key_prefix(data_dir: Path) -> str:
    """The prefix of every Redis key a stack on the embedded database uses, named by its data directory.

    Two stacks on one machine (a second checkout, a test run beside a development server) reach the same local
    redis-server; without their own keys the one's workers would take the other's tasks, against another
    database (an erasure request they cannot find, so never carried out).
    """
    return f"mh-{hashlib.blake2b(str(data_dir).encode(), digest_size=4).hexdigest()}:"


def redis_reachable(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5).ping())
    except redis.RedisError:
        return False


def ensure_redis(url: str, data_dir: Path) -> bool:
    """Make ``url`` answer; start a local ``redis-server`` when it is a localhost URL that does not.

    Returns True if this call started a server.
    """
    if redis_reachable(url):
        return False
    parsed = urlparse(url)
    if parsed.hostname not in {"127.0.0.1", "localhost", "::1"}:
        raise RuntimeError(f"Redis at {url} is not reachable and is not local, so it cannot be started here.")
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed (Debian: apt-get install redis-server).")
    redis_dir = data_dir / "redis"
    redis_dir.mkdir(parents=True, exist_ok=True)
    port = parsed.port or 6379
    subprocess.run(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--daemonize",
            "yes",
            "--dir",
            str(redis_dir),
            "--pidfile",
            str(_redis_pid_file(data_dir)),
            "--logfile",
            str(redis_dir / "redis.log"),
            "--save",
            "60 1000",
            "--appendonly",
            "no",
        ],
        check=True,
    )
    for _ in range(50):
        if redis_reachable(url):
            logger.info("started redis-server on port %s", port)
            return True
        time.sleep(0.1)
    raise RuntimeError(f"redis-server did not come up on port {port}; see {redis_dir / 'redis.log'}")


def _redis_pid_file(data_dir: Path) -> Path:
    """Where the redis-server started for ``data_dir`` writes its process id."""
    return data_dir / "redis" / "redis.pid"


def redis_started_here(url: str, data_dir: Path) -> bool:
    """Whether the redis-server answering ``url`` is the one this module started for ``data_dir`` (its pid file
    names the server's process), not one another checkout or the system runs."""
    pid_file = _redis_pid_file(data_dir)
    try:
        pid = int(pid_file.read_text().strip())
        served = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5).info("server")
    except (OSError, ValueError, redis.RedisError):
        return False
    return served.get("process_id") == pid


def stop_redis(data_dir: Path) -> bool:
    """Stop the redis-server this module started (found by its pid file)."""
    pid_file = _redis_pid_file(data_dir)
    if not pid_file.exists():
        return False
    try:
        pid = int(pid_file.read_text().strip())
        import os
        import signal

        os.kill(pid, signal.SIGTERM)
        return True
    except (ValueError, ProcessLookupError):
        return False
    finally:
        pid_file.unlink(missing_ok=True)


def _main(argv: list[str]) -> int:
    """``python -m memoryhub.devservers stop``: stop local Redis and the embedded PostgreSQL
    without loading Django (which would start the database first)."""
    import os

    from memoryhub.database import stop_embedded_server

    if argv[1:] != ["stop"]:
        print("usage: python -m memoryhub.devservers stop")
        return 2
    base = Path(__file__).resolve().parent.parent
    data_dir = Path(os.environ.get("MEMORYHUB_DATA_DIR", base / ".data")).resolve()
    print(f"redis stopped: {stop_redis(data_dir)}")
    print(f"embedded postgres stopped: {stop_embedded_server(data_dir)}")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(_main(sys.argv))
