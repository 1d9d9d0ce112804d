"""WSGI entry point (gunicorn ``memoryhub.wsgi:application``)."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from django.core.wsgi import get_wsgi_application  # noqa: E402

from memoryhub.tracing import configure as configure_tracing  # noqa: E402

# Before the handler loads its middleware: the Django instrumentation adds one (only when OTEL_* asks for traces).
configure_tracing(service_name="memoryhub-web")
application = get_wsgi_application()
