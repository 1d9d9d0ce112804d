"""The Celery application. Tasks live in each app's ``tasks.py`` and are found automatically.

Queues, routes and priorities come from :mod:`memoryhub.queues.routing` (the one place
that decides where work goes).
"""

import os

from celery import Celery
from celery.signals import task_prerun, worker_init

from memoryhub.queues.routing import celery_config
from memoryhub.queues.sending import release_coalesced

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")

app = Celery("memoryhub")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(celery_config())
app.autodiscover_tasks()


@task_prerun.connect(weak=False)
def _release_coalesced(sender=None, kwargs=None, **_):
    release_coalesced(getattr(sender, "name", ""), kwargs or {})


@worker_init.connect(weak=False)
def _start_tracing(**_):
    """Traces from this worker when OTEL_* asks for them (pool processes forked later inherit the set-up)."""
    from memoryhub.tracing import configure

    configure(service_name="memoryhub-worker")
