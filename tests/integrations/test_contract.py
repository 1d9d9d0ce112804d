"""The client cannot drift from the API: models, error codes and routes are checked against the server."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator
from memoryhub_client import MemoryHub, errors
from memoryhub_client._codegen import generate

import memoryhub.exceptions as server_errors

MODELS_FILE = Path(__file__).resolve().parents[2] / "clients/python/memoryhub_client/models.py"


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def test_models_are_the_ones_generated_from_the_live_schema(schema):
    expected = generate(schema)
    assert MODELS_FILE.read_text() == expected, (
        "clients/python/memoryhub_client/models.py is out of date with /api/schema/: run `make client-models`"
    )


def _server_codes() -> set[str]:
    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    codes = {cls.default_code for cls in subclasses(server_errors.MemoryHubError)}
    codes |= set(server_errors._DRF_CODES.values())
    source = inspect.getsource(server_errors.exception_handler)
    codes |= {"payload_too_large"} if "payload_too_large" in source else set()
    return codes


def test_every_error_code_the_server_declares_has_its_own_exception_class():
    missing = sorted(code for code in _server_codes() if code not in errors.ERROR_CLASSES)
    assert missing == [], f"add a class per code to memoryhub_client/errors.py: {missing}"
    assert errors.ERROR_CLASSES["bank_not_found"] is errors.BankNotFound
    assert issubclass(errors.BankNotFound, errors.NotFoundError) and issubclass(
        errors.RateLimited, errors.UnavailableError
    )


# Every route of the resources the client covers, and the client method that calls it.
COVERED = {
    ("GET", "/api/v1/banks/"): "banks.list",
    ("POST", "/api/v1/banks/"): "banks.create",
    ("GET", "/api/v1/banks/{bank_slug}/"): "banks.get",
    ("PATCH", "/api/v1/banks/{bank_slug}/"): "banks.update",
    ("DELETE", "/api/v1/banks/{bank_slug}/"): "banks.delete",
    ("POST", "/api/v1/banks/{bank_slug}/retain"): "retain",
    ("GET", "/api/v1/banks/{bank_slug}/retain-batches/{batch_id}"): "retain_batches.get",
    ("POST", "/api/v1/banks/{bank_slug}/recall"): "recall",
    ("POST", "/api/v1/banks/{bank_slug}/reflect"): "reflect",
    ("GET", "/api/v1/banks/{bank_slug}/episodes/"): "episodes.list",
    ("GET", "/api/v1/banks/{bank_slug}/episodes/{episode_id}"): "episodes.get",
    ("DELETE", "/api/v1/banks/{bank_slug}/episodes/{episode_id}"): "episodes.delete",
    ("POST", "/api/v1/banks/{bank_slug}/episodes/{episode_id}/release"): "episodes.release",
    ("GET", "/api/v1/banks/{bank_slug}/facts/"): "facts.list",
    ("GET", "/api/v1/banks/{bank_slug}/facts/{fact_id}"): "facts.get",
    ("GET", "/api/v1/banks/{bank_slug}/beliefs/"): "beliefs.list",
    ("GET", "/api/v1/banks/{bank_slug}/beliefs/{belief_id}"): "beliefs.get",
    ("GET", "/api/v1/banks/{bank_slug}/mental-models/"): "mental_models.list",
    ("POST", "/api/v1/banks/{bank_slug}/mental-models/"): "mental_models.create",
    ("GET", "/api/v1/banks/{bank_slug}/mental-models/{name}"): "mental_models.get",
    ("DELETE", "/api/v1/banks/{bank_slug}/mental-models/{name}"): "mental_models.delete",
    ("POST", "/api/v1/banks/{bank_slug}/mental-models/{name}/refresh"): "mental_models.refresh",
    ("GET", "/api/v1/banks/{bank_slug}/review-items/"): "review_items.list",
    ("GET", "/api/v1/banks/{bank_slug}/review-items/{item_id}"): "review_items.get",
    ("POST", "/api/v1/banks/{bank_slug}/review-items/{item_id}/{decision}"): "review_items.decide",
    ("GET", "/api/v1/erasure-requests/"): "erasure_requests.list",
    ("POST", "/api/v1/erasure-requests/"): "erasure_requests.create",
    ("GET", "/api/v1/erasure-requests/{request_id}"): "erasure_requests.get",
    ("GET", "/api/v1/api-keys/"): "api_keys.list",
    ("POST", "/api/v1/api-keys/"): "api_keys.issue",
    ("DELETE", "/api/v1/api-keys/{prefix}"): "api_keys.revoke",
    ("GET", "/api/v1/banks/{bank_slug}/background"): "background.status",
    ("POST", "/api/v1/banks/{bank_slug}/background"): "background.run",
    ("GET", "/api/v1/banks/{bank_slug}/audit-events/"): "audit_events.list",
    ("GET", "/api/v1/banks/{bank_slug}/export"): "portability.export_lines",
    ("POST", "/api/v1/banks/{bank_slug}/import"): "portability.import_lines",
}
# Routes the client leaves to plain HTTP for now (workload endpoints with free-form answers, admin re-scans).
NOT_COVERED = {"/anomaly/", "/churn/", "/lessons", "/defense-rescans/"}


def test_every_api_route_of_the_covered_resources_has_a_client_method(schema):
    routes = {
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method in operations
        if method in {"get", "post", "patch", "put", "delete"}
    }
    uncovered = sorted(r for r in routes - set(COVERED) if not any(part in r[1] for part in NOT_COVERED))
    assert uncovered == [], f"add client methods for {uncovered}"
    assert set(COVERED) <= routes, sorted(set(COVERED) - routes)
    hub = MemoryHub("http://testserver")
    for dotted in COVERED.values():
        target = hub
        for part in dotted.split("."):
            target = getattr(target, part)
        assert callable(target), dotted
