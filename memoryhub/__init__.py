"""MemoryHub: a self-hosted memory service for AI agents."""

from memoryhub.celery import app as celery_app

__all__ = ["celery_app"]
