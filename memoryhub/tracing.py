"""OpenTelemetry traces across web, worker and database; off unless ``OTEL_TRACES_EXPORTER`` names an exporter.

On with the standard variables: ``OTEL_TRACES_EXPORTER`` (``otlp`` — OTLP over HTTP, with
``OTEL_EXPORTER_OTLP_ENDPOINT`` and friends — or ``console``, comma-separated for both),
``OTEL_SERVICE_NAME`` (default ``memoryhub-web`` / ``memoryhub-worker``),
``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_TRACES_SAMPLER``; ``OTEL_SDK_DISABLED=true`` turns it off
again. ``memoryhub.wsgi`` configures the web process, ``memoryhub.celery`` each worker.

When on: the maintained instrumentations trace Django requests, Celery tasks (the trace
context travels in the task message's headers, so extraction and consolidation caused by a
retain share its trace), psycopg statements and Redis commands; recall adds one span per
stage and channel with the figures ``explain`` reports.

When off, none of it is loaded (no tracer provider, exporter or instrumentation; recent
redis clients import parts of the OpenTelemetry API by themselves): ``recall_stage`` hands
back one shared object whose methods do nothing, and ``traced_recall`` calls straight through.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

_state: dict = {"tracer": None, "provider": None}
_EXPORTER_ALIASES = {"otlp": "otlp_proto_http"}  # the HTTP exporter is installed (no gRPC stack)


def enabled_by_environment() -> bool:
    exporters = os.environ.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    disabled = os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"
    return bool(exporters) and exporters != "none" and not disabled


def is_enabled() -> bool:
    return _state["tracer"] is not None


def configure(*, service_name: str, exporter=None) -> bool:
    """Set up tracing for this process once; True when it is on.

    ``exporter`` (tests: an in-memory exporter) replaces the environment's choice, exports
    each span as it ends, and leaves the global tracer provider alone.
    """
    if is_enabled():
        return True
    if exporter is None and not enabled_by_environment():
        return False
    from opentelemetry import trace
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    attributes = {} if os.environ.get("OTEL_SERVICE_NAME") else {SERVICE_NAME: service_name}
    provider = TracerProvider(resource=Resource.create(attributes))
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    else:
        for environment_exporter in _exporters_from_environment():
            provider.add_span_processor(BatchSpanProcessor(environment_exporter))
        trace.set_tracer_provider(provider)
    _instrument(provider)
    _state.update(provider=provider, tracer=provider.get_tracer("memoryhub"))
    logger.info("tracing on: service %s", provider.resource.attributes.get(SERVICE_NAME))
    return True


def _exporters_from_environment():
    from opentelemetry.util._importlib_metadata import entry_points

    for name in os.environ["OTEL_TRACES_EXPORTER"].split(","):
        name = name.strip().lower()
        if not name or name == "none":
            continue
        found = list(entry_points(group="opentelemetry_traces_exporter", name=name)) or list(
            entry_points(group="opentelemetry_traces_exporter", name=_EXPORTER_ALIASES.get(name, name))
        )
        if not found:
            raise ValueError(f"OTEL_TRACES_EXPORTER names {name!r}, which no installed package provides")
        yield found[0].load()()


def _instrument(provider) -> None:
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    DjangoInstrumentor().instrument(tracer_provider=provider)
    CeleryInstrumentor().instrument(tracer_provider=provider)
    PsycopgInstrumentor().instrument(tracer_provider=provider, skip_dep_check=True)
    RedisInstrumentor().instrument(tracer_provider=provider)


def shutdown() -> None:
    """Flush, remove the instrumentations and turn tracing off (tests; a process's end flushes by itself)."""
    if not is_enabled():
        return
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    for instrumentor in (DjangoInstrumentor(), CeleryInstrumentor(), PsycopgInstrumentor(), RedisInstrumentor()):
        instrumentor.uninstrument()
    _state["provider"].force_flush()
    _state.update(provider=None, tracer=None)


# --- recall: one span per call, stage and channel ---------------------------------------------


class _Off:
    """What recall gets while tracing is off: every method does nothing."""

    def done(self, value):
        return value

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_OFF = _Off()


class _Stage:
    def __init__(self, name: str, parent):
        self.name, self.parent, self.span, self._token = name, parent, None, None

    def __enter__(self):
        from opentelemetry import context

        self.span = _state["tracer"].start_span(f"recall.{self.name}", context=self.parent)
        self._token = context.attach(self.parent) if self.parent is not None else None
        return self

    def done(self, value):
        hits = value[1] if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], list) else value
        if isinstance(hits, list | dict):
            self.span.set_attribute("memoryhub.recall.hits", len(hits))
        return value

    def __exit__(self, exc_type, exc, tb):
        from opentelemetry import context
        from opentelemetry.trace import Status, StatusCode

        if exc is not None:
            self.span.record_exception(exc)
            self.span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
        self.span.end()
        if self._token is not None:
            context.detach(self._token)
        return False


def current_context():
    """The caller's trace context, to hand to work run on another thread (None when tracing is off)."""
    if not is_enabled():
        return None
    from opentelemetry import context

    return context.get_current()


def recall_stage(name: str, parent=None):
    """``with recall_stage("semantic", parent) as stage: return stage.done(result)``: a span per channel call."""
    return _Stage(name, parent) if is_enabled() else _OFF


def record_stage(name: str, started: float, **attributes) -> None:
    """A span for a stage that ran from ``started`` (``time.perf_counter()``) until now, in this thread."""
    if not is_enabled():
        return
    elapsed_ns = int((time.perf_counter() - started) * 1e9)
    end = time.time_ns()
    span = _state["tracer"].start_span(f"recall.{name}", start_time=end - elapsed_ns, attributes=attributes)
    span.end(end_time=end)


def traced_recall(function: Callable) -> Callable:
    """Wrap ``recall`` in a ``recall`` span carrying what ``explain`` reports about the call."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if not is_enabled():
            return function(*args, **kwargs)
        bank = kwargs.get("bank")
        attributes = {"memoryhub.bank_id": getattr(bank, "pk", 0) or 0,
                      "memoryhub.recall.budget_tokens": int(kwargs.get("budget_tokens") or 0)}  # fmt: skip
        with _state["tracer"].start_as_current_span("recall", attributes=attributes) as span:
            result = function(*args, **kwargs)
            span.set_attributes(_explain_attributes(result))
            return result

    return wrapper


def _explain_attributes(result) -> dict:
    figures = {
        "memoryhub.recall.tokens_used": result.tokens_used,
        "memoryhub.recall.items": len(result.items),
        "memoryhub.recall.candidates": result.candidates,
        "memoryhub.recall.dropped_by_budget": result.dropped_by_budget,
        "memoryhub.recall.trimmed": result.trimmed,
        "memoryhub.recall.query_tokens": result.query_tokens,
        "memoryhub.recall.elapsed_ms": round(result.elapsed_ms, 2),
        "memoryhub.recall.time_ranges": len(result.time_ranges),
    }
    if result.reference_time is not None:
        figures["memoryhub.recall.reference_time"] = result.reference_time.isoformat()
    figures.update({f"memoryhub.recall.channel.{name}.hits": count for name, count in result.channel_counts.items()})
    figures.update({f"memoryhub.recall.stage.{name}.ms": ms for name, ms in result.channel_ms.items()})
    return figures
