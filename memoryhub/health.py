"""``/healthz``: is the service able to do its job right now?"""

from __future__ import annotations

import redis
from django.conf import settings
from django.db import connection
from django.http import JsonResponse

from memoryhub import embeddings
from memoryhub.database import PgvectorMissing, require_pgvector


def _database() -> dict:
    try:
        version = require_pgvector(connection)
        return {"ok": True, "pgvector": version}
    except PgvectorMissing as exc:
        return {"ok": False, "error": str(exc)}
    except Exception as exc:  # the point of a health check is to report, not raise
        return {"ok": False, "error": type(exc).__name__}


def _broker() -> dict:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"ok": True, "mode": "eager"}
    try:
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=1, socket_timeout=1)
        client.ping()
        return {"ok": True, "mode": "redis"}
    except Exception as exc:
        return {"ok": False, "mode": "redis", "error": type(exc).__name__}


def healthz(request):
    checks = {
        "database": _database(),
        "broker": _broker(),
        # Whether the model is loaded, not where it lives: /healthz answers anyone, so it names no file path.
        "model": {"ok": True, "loaded": embeddings.model_loaded()},
    }
    healthy = checks["database"]["ok"] and checks["broker"]["ok"]
    return JsonResponse({"status": "ok" if healthy else "degraded", "checks": checks}, status=200 if healthy else 503)


def metrics_view(request):
    """Prometheus exposition. ``MEMORYHUB_METRICS``: a bearer token (the default, see settings), "open" or "off".

    Every scrape runs a cross-tenant count under the maintenance role, so it is not open unless the operator says so.
    """
    from django.http import HttpResponse, HttpResponseNotFound

    from memoryhub.observability import render

    access = settings.METRICS_ACCESS
    if access == "off":
        return HttpResponseNotFound()
    if access != "open":
        import hmac

        supplied = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(supplied.encode(), access.encode()):
            return JsonResponse(
                {"code": "not_authenticated", "detail": "Metrics need a bearer token.", "extra": {}}, status=401
            )
    body, content_type = render()
    return HttpResponse(body, content_type=content_type)
