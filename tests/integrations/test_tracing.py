"""OpenTelemetry traces: off by default, on with OTEL_*, spans per recall stage, one trace across the Celery hop."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx
import pytest
from celery.contrib.testing.worker import start_worker
from django.core.handlers.wsgi import WSGIHandler
from django.db import connections
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from memoryhub import tracing
from memoryhub.celery import app
from tests.helpers.callers import make_caller, retain_texts


def python(code: str, **env) -> str:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    result = subprocess.run([sys.executable, "-c", code], env={**environ, **env, "DJANGO_SETTINGS_MODULE":
                            "memoryhub.settings_test"}, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


OFF_PROBE = """
import sys
from memoryhub import tracing
on = tracing.configure(service_name="memoryhub-web")
with tracing.recall_stage("semantic") as stage:
    value = stage.done([1, 2])
tracing.record_stage("embed", 0.0)
# redis-py imports parts of the OpenTelemetry API by itself when installed; tracing's own pieces stay out.
ours = ("opentelemetry.sdk.trace", "opentelemetry.instrumentation", "opentelemetry.exporter")
print(on, value, sorted(m for m in sys.modules if m.startswith(ours)))
"""


@pytest.mark.parametrize("env", [{}, {"OTEL_TRACES_EXPORTER": "none"},
                                 {"OTEL_TRACES_EXPORTER": "console", "OTEL_SDK_DISABLED": "true"}])  # fmt: skip
def test_tracing_is_off_unless_asked_and_then_loads_nothing_of_it(env):
    assert python(OFF_PROBE, **env).strip() == "False [1, 2] []"


def test_the_standard_variables_turn_it_on_with_their_service_name():
    code = """
from memoryhub import tracing
assert tracing.configure(service_name="memoryhub-web")
with tracing.recall_stage("keyword") as stage:
    stage.done(["a", "b", "c"])
tracing.shutdown()
"""
    printed = python(code, OTEL_TRACES_EXPORTER="console", OTEL_SERVICE_NAME="memoryhub-staging")
    assert '"name": "recall.keyword"' in printed and '"memoryhub.recall.hits": 3' in printed
    assert '"service.name": "memoryhub-staging"' in printed


@pytest.fixture
def spans(transactional_db):
    """Tracing on in this process with an in-memory exporter; database connections opened from here on are traced."""
    exporter = InMemorySpanExporter()
    assert tracing.configure(service_name="memoryhub-test", exporter=exporter)
    connections.close_all()
    yield exporter
    tracing.shutdown()
    connections.close_all()


def served(raw_key: str) -> httpx.Client:
    """The API through a WSGI handler built now, so it has the tracing middleware."""
    transport = httpx.WSGITransport(app=WSGIHandler())
    return httpx.Client(
        base_url="http://testserver", transport=transport, headers={"Authorization": f"Bearer {raw_key}"}
    )


def by_name(finished, name: str):
    return [span for span in finished if span.name == name]


def test_a_recall_request_is_one_trace_with_a_span_per_stage_and_channel(spans):
    caller = make_caller()
    retain_texts(caller.bank, ["Disk latency on db-01 rises during the nightly backup.",
                               "The billing queue drains slowly on Mondays after 09:00."])  # fmt: skip
    spans.clear()
    with served(caller.raw_key) as client:
        body = {"query": "disk latency last week", "budget_tokens": 200, "explain": True}
        answer = client.post(f"/api/v1/banks/{caller.bank.slug}/recall", json=body).json()

    finished = spans.get_finished_spans()
    [server] = [s for s in finished if s.kind == SpanKind.SERVER]
    [recall] = by_name(finished, "recall")
    assert recall.parent.span_id == server.context.span_id and recall.context.trace_id == server.context.trace_id
    stages = {s.name.removeprefix("recall."): s for s in finished if s.name.startswith("recall.")}
    assert set(answer["explain"]["channel_ms"]) == set(stages)  # the same stages explain reports
    assert {"embed", "semantic", "keyword", "graph", "temporal", "rank_and_pack"} <= set(stages)
    assert all(s.parent.span_id == recall.context.span_id for s in stages.values())
    figures = recall.attributes
    assert figures["memoryhub.recall.tokens_used"] == answer["tokens_used"] and answer["tokens_used"] > 0
    assert figures["memoryhub.recall.candidates"] == answer["candidates"]
    assert figures["memoryhub.recall.budget_tokens"] == 200 and figures["memoryhub.recall.time_ranges"] == 1
    for channel, hits in answer["usage"]["channels"].items():
        assert figures[f"memoryhub.recall.channel.{channel}.hits"] == hits
        assert stages[channel].attributes["memoryhub.recall.hits"] == hits
    statements = [s for s in finished if s.attributes.get("db.system") == "postgresql"]
    assert statements and {s.context.trace_id for s in statements} == {server.context.trace_id}


def _ancestors(span, index):
    while span.parent is not None and span.parent.span_id in index:
        span = index[span.parent.span_id]
        yield span


@pytest.mark.celery_worker
def test_a_retain_shares_its_trace_with_the_extraction_and_consolidation_it_causes(spans):
    caller = make_caller()
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        with served(caller.raw_key) as client:
            response = client.post(f"/api/v1/banks/{caller.bank.slug}/retain", json={"items": [
                {"content": "Dana renewed the Pro plan for the Berlin office.", "subject": "user:dana"}]})  # fmt: skip
        assert response.status_code == 201
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not by_name(
            spans.get_finished_spans(), "run/beliefs.tasks.consolidate_bank_task"
        ):
            time.sleep(0.3)

    finished = spans.get_finished_spans()
    index = {s.context.span_id: s for s in finished}
    [server] = [s for s in finished if s.kind == SpanKind.SERVER]
    [publish_extract] = by_name(finished, "apply_async/beliefs.tasks.extract_bank_task")
    [run_extract] = by_name(finished, "run/beliefs.tasks.extract_bank_task")
    run_consolidate = by_name(finished, "run/beliefs.tasks.consolidate_bank_task")[0]
    assert server in _ancestors(publish_extract, index)  # published inside the request
    assert run_extract.parent.span_id == publish_extract.context.span_id  # the context crossed the broker
    assert run_extract in _ancestors(run_consolidate, index)  # and went on from the extraction
    assert {publish_extract.context.trace_id, run_extract.context.trace_id, run_consolidate.context.trace_id} == {
        server.context.trace_id}  # fmt: skip
    worker_statements = [s for s in finished if s.attributes.get("db.system") == "postgresql"
                         and run_extract in _ancestors(s, index)]  # fmt: skip
    assert worker_statements
