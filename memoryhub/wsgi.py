"""WSGI entry point (gunicorn ``memoryhub.wsgi:application``)."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from django.core.wsgi import get_wsgi_application  # noqa: E402

application = get_wsgi_application()
