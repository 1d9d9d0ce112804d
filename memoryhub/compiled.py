"""Querysets on every request's path, compiled to SQL once instead of on each call.

Django builds and compiles a queryset's SQL on every evaluation; for the few small lookups every API request
makes (its key, its bank) that costs several times what PostgreSQL spends answering them. ``compiled_rows``
compiles a queryset once with stand-in values, finds each stand-in again among the compiled parameters, and
from then on runs the SQL text with the call's own values as model rows (``Manager.raw``: the model's own
columns, related objects loaded on first use).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from django.db.models import Model, QuerySet


def compiled_rows(build: Callable[..., QuerySet], **stand_ins: object) -> Callable[..., list[Model]]:
    """``run(**values)``: the rows of ``build(**values)``, from SQL compiled once from ``build(**stand_ins)``.

    Each stand-in must be a value no real call passes and must appear exactly once among the compiled
    parameters (checked when first compiled). ``build`` must select the model's own columns only (no
    ``select_related``, ``values`` or annotations): ``raw`` maps columns to fields by name."""

    @lru_cache(maxsize=1)
    def statement() -> tuple[type[Model], str, tuple[tuple[str | None, object], ...]]:
        queryset = build(**stand_ins)
        sql, params = queryset.query.sql_with_params()
        slots = []
        for param in params:
            names = [name for name, value in stand_ins.items() if type(value) is type(param) and value == param]
            slots.append((names[0] if names else None, param))
        found = [name for name, _ in slots if name]
        if sorted(found) != sorted(stand_ins):
            raise RuntimeError(f"compiled parameters hold the stand-ins {found}, not each of {sorted(stand_ins)} once")
        return queryset.model, sql, tuple(slots)

    def run(**values: object) -> list[Model]:
        model, sql, slots = statement()
        return list(model._default_manager.raw(sql, [values[name] if name else param for name, param in slots]))

    return run
