"""Routes as the URL resolver knows them, so tests can cover every one and notice a new one.

A route is one URL pattern with one HTTP method its view answers. Tests that promise to
cover "every bank route" or "every page" take their cases from here and assert that their
case tables name exactly these routes, so a route added without a case fails a test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from django.urls import URLPattern, URLResolver, get_resolver

METHODS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class Route:
    pattern: str  # e.g. "/api/v1/banks/<bank_slug:bank_slug>/episodes/<int:episode_id>"
    name: str  # namespaced URL name, e.g. "episode-detail" or "beliefs_web:belief-list"
    method: str  # lower case
    view_class: type | None
    converters: tuple[tuple[str, str], ...]  # (kwarg, converter type) for each path parameter

    @property
    def key(self) -> str:
        """``<url name>:<method>``: the id of a case in a test's table."""
        return f"{self.name}:{self.method}"

    @property
    def is_api(self) -> bool:
        return self.pattern.startswith("/api/v1/")

    @property
    def has_bank(self) -> bool:
        return any(kwarg == "bank_slug" for kwarg, _ in self.converters)

    def path(self, **kwargs) -> str:
        """The pattern with each ``<type:kwarg>`` replaced by ``kwargs[kwarg]``."""

        def fill(match: re.Match) -> str:
            return str(kwargs[match.group(2)])

        return _PARAMETER.sub(fill, self.pattern)


_PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")


def _view_class(callback) -> type | None:
    return getattr(callback, "view_class", None) or getattr(callback, "cls", None)


def _methods(view_class: type | None) -> list[str]:
    if view_class is None:  # a function view: GET is what it serves
        return ["get"]
    allowed = getattr(view_class, "http_method_names", METHODS)
    methods = [m for m in METHODS if m in allowed and hasattr(view_class, m)]
    # Django's form views answer PUT as a POST; that is not a route of its own.
    return [m for m in methods if not (m == "put" and getattr(view_class, m).__module__ == "django.views.generic.edit")]


@cache
def all_routes() -> tuple[Route, ...]:
    """Every (pattern, method) the project serves, in resolver order."""
    found: list[Route] = []

    def walk(patterns, prefix: str, namespace: str) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                inner = f"{namespace}:{entry.namespace}".strip(":") if entry.namespace else namespace
                walk(entry.url_patterns, prefix + str(entry.pattern), inner)
            elif isinstance(entry, URLPattern):
                pattern = prefix + str(entry.pattern)
                name = f"{namespace}:{entry.name}".strip(":") if namespace else (entry.name or pattern)
                view_class = _view_class(entry.callback)
                converters = tuple((m.group(2), m.group(1) or "str") for m in _PARAMETER.finditer(pattern))
                found.extend(Route(pattern, name, method, view_class, converters) for method in _methods(view_class))

    walk(get_resolver().url_patterns, "/", "")
    return tuple(found)


def bank_api_routes() -> list[Route]:
    """Every API route under ``/api/v1/banks/<bank_slug>/``."""
    return [r for r in all_routes() if r.is_api and r.has_bank]


def bank_page_routes() -> list[Route]:
    """Every dashboard page under ``/t/<tenant_slug>/banks/<bank_slug>/``."""
    return [r for r in all_routes() if r.pattern.startswith("/t/") and r.has_bank]


def page_routes() -> list[Route]:
    """Every dashboard route (``/``, ``/accounts/``, ``/staff/``, ``/t/``); not the API, Django admin or probes."""
    return [r for r in all_routes() if not r.is_api and not r.pattern.startswith(("/api/", "/admin/"))
            and r.name not in {"healthz", "metrics"}]  # fmt: skip
