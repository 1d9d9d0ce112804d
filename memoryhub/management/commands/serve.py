"""``manage.py serve``: everything a laptop needs, in one command.

Starts Redis when none answers (the embedded PostgreSQL starts with the settings),
applies migrations, seeds the demo bank, then runs one Celery worker per queue (the
background one with beat) and the gunicorn web server side by side until interrupted.
"""

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import connection

from memoryhub.database import require_pgvector
from memoryhub.devservers import ensure_redis
from memoryhub.queues import WORKERS


class Command(BaseCommand):
    help = "Run MemoryHub locally: Redis, migrations, demo data, a Celery worker and the web server."

    def add_arguments(self, parser):
        parser.add_argument("--bind", default=os.environ.get("MEMORYHUB_BIND", "127.0.0.1:8000"))
        parser.add_argument("--web-workers", type=int, default=int(os.environ.get("MEMORYHUB_WEB_WORKERS", "2")))
        parser.add_argument("--no-demo", action="store_true", help="Skip the demo tenant and episodes.")

    def handle(self, *args, bind: str, web_workers: int, no_demo: bool, **options):
        if not settings.CELERY_TASK_ALWAYS_EAGER:
            ensure_redis(settings.REDIS_URL, settings.DATA_DIR)
        self.stdout.write(f"pgvector {require_pgvector(connection)} on {settings.DATABASES['default']['NAME']}")
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        if not no_demo:
            call_command("seed_demo")
        connection.close()

        python = sys.executable
        processes = []
        if not settings.CELERY_TASK_ALWAYS_EAGER:
            # One worker per queue (memoryhub.queues.WORKERS): an erasure never waits behind a bulk import.
            for spec in WORKERS:
                command = spec.command(python)
                if spec.beat:
                    command += ["--schedule", str(settings.DATA_DIR / "celerybeat-schedule")]
                processes.append(subprocess.Popen(command))
        processes.append(
            subprocess.Popen(
                [
                    python,
                    "-m",
                    "gunicorn",
                    "memoryhub.wsgi:application",
                    "--bind",
                    bind,
                    "--workers",
                    str(web_workers),
                    "--threads",
                    "4",
                    "--timeout",
                    "120",
                    "--config",
                    "python:memoryhub.gunicorn_conf",
                ],
            )
        )
        self.stdout.write(self.style.SUCCESS(f"MemoryHub is serving on http://{bind}  (API docs: /api/docs/)"))
        self.stdout.write(_metrics_hint(bind))

        def stop(*_):
            for process in processes:
                if process.poll() is None:
                    process.terminate()

        signal.signal(signal.SIGTERM, stop)
        try:
            while all(process.poll() is None for process in processes):
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            stop()
            for process in processes:
                process.wait(timeout=30)


def _metrics_hint(bind: str) -> str:
    """How to scrape /metrics: it needs the data directory's token unless MEMORYHUB_METRICS says otherwise."""
    access = settings.METRICS_ACCESS
    if access == "off":
        return "metrics: off (MEMORYHUB_METRICS=off)"
    if access == "open":
        return f"metrics: http://{bind}/metrics (open to anyone: MEMORYHUB_METRICS=open)"
    token_file = settings.DATA_DIR / "metrics-token"
    where = f"$(cat {token_file})" if token_file.exists() and token_file.read_text().strip() == access else "$TOKEN"
    return f'metrics: curl -H "Authorization: Bearer {where}" http://{bind}/metrics'
