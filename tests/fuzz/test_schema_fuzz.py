"""Schema fuzzing: schemathesis generates requests for every operation in ``/api/schema/``.

Valid and invalid data (positive and negative generation) go through the whole Django
stack with a valid API key against a bank that holds episodes, facts, beliefs, a mental
model and review items. For every case: no 5xx, the answer matches the schema (status
code, content type, body, headers), and a rejected request (4xx) changed nothing stored.

Size: ``MEMORYHUB_FUZZ_EXAMPLES`` examples per operation (``make test`` runs a small
default; ``make fuzz`` runs the full size). Every case is counted in
``benchmarks/results/fuzz.json`` when ``MEMORYHUB_FUZZ_REPORT`` names that file.
"""

from __future__ import annotations

import json
import logging
import os
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
import schemathesis
from django.db import connection
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from memoryhub.wsgi import application

EXAMPLES = int(os.environ.get("MEMORYHUB_FUZZ_EXAMPLES", "60"))
REPORT = os.environ.get("MEMORYHUB_FUZZ_REPORT", "")
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
STATS: Counter = Counter()
VIOLATIONS: Counter = Counter()  # by kind: a response the schema does not describe, a rejection that changed data


@schemathesis.serializer("application/x-ndjson")
def _json_lines(ctx, value) -> bytes:
    """Bank import bodies: one JSON document per line (a generated list is its lines, anything else one line)."""
    rows = value if isinstance(value, list) else [value]
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


schema = schemathesis.openapi.from_wsgi("/api/schema/", application)


def stored_state() -> tuple:
    """A fingerprint of everything a request could change: row counts and newest ids per table, bank rows."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
            "AND tablename NOT IN ('django_session', 'django_migrations') ORDER BY tablename"
        )
        tables = [row[0] for row in cursor.fetchall()]
        counts = " UNION ALL ".join(f"SELECT '{t}', count(*), 0 FROM {t}" for t in tables)
        cursor.execute(counts)
        rows = cursor.fetchall()
        cursor.execute(
            "SELECT md5(coalesce(string_agg(concat_ws('|', slug, name, description, background, policy::text, "
            "updated_at::text), ',' ORDER BY id), '')) FROM banks_bank"
        )
        banks = cursor.fetchone()[0]
        cursor.execute(
            "SELECT md5(coalesce(string_agg(concat_ws('|', id, status, decided_by, comment), ',' ORDER BY id), '')) "
            "FROM reviews_reviewitem"
        )
        reviews = cursor.fetchone()[0]
        cursor.execute(
            "SELECT md5(coalesce(string_agg(concat_ws('|', id, name, answer, refreshed_at::text), ',' ORDER BY id), "
            "'')) FROM beliefs_mentalmodel"
        )
        models = cursor.fetchone()[0]
    return tuple(rows), banks, reviews, models


@pytest.fixture(scope="module", autouse=True)
def _report():
    # Like Django's test client: a WSGI request must not close the test's connection (it holds the test transaction).
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    logging.getLogger("django.request").setLevel(logging.CRITICAL)  # thousands of expected 4xx warnings
    yield
    logging.getLogger("django.request").setLevel(logging.NOTSET)
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)
    if REPORT and STATS:
        by_class: Counter = Counter()
        for (_, klass), count in STATS.items():
            by_class[f"{klass}xx"] += count
        Path(REPORT).write_text(
            json.dumps(
                {
                    "cases": sum(STATS.values()),
                    "operations": len({operation for operation, _ in STATS}),
                    "examples_per_operation": EXAMPLES,
                    "by_status_class": dict(sorted(by_class.items())),
                    "server_errors": by_class.get("5xx", 0),
                    "schema_violations": VIOLATIONS["schema_violations"],
                    "rejections_that_changed_data": VIOLATIONS["rejections_that_changed_data"],
                    "checks": [check.__name__ for check in CHECKS],
                    "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
                },
                indent=2,
            )
            + "\n"
        )


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
    database=None,
)
def test_every_operation_answers_by_its_schema_and_rejections_change_nothing(case, fuzz_bank):
    parameters = case.path_parameters or {}
    if "bank_slug" in parameters:
        parameters["bank_slug"] = fuzz_bank.bank.slug
    turn = sum(STATS.values())
    for name, known in fuzz_bank.ids.items():
        if name in parameters and known and turn % 2 == 0:  # half the cases name an object that exists
            parameters[name] = known[turn % len(known)]
    before = stored_state()
    response = case.call(headers={"Authorization": f"Bearer {fuzz_bank.raw_key}"})
    STATS[(case.operation.label, response.status_code // 100)] += 1
    try:
        case.validate_response(response, checks=CHECKS)
    except Exception:
        VIOLATIONS["schema_violations"] += 1
        raise
    if response.status_code >= 400 and stored_state() != before:
        VIOLATIONS["rejections_that_changed_data"] += 1
        raise AssertionError(f"{case.operation.label} answered {response.status_code} but changed data")
