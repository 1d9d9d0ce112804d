"""Inputs that used to answer 500 or HTML: every one gets the JSON error format and changes nothing."""

import json
import socket

import pytest
from django.test import Client

from beliefs.models import Episode
from memoryhub.gunicorn_conf import json_error, write_json_error
from tests.helpers.routes import bank_api_routes

ERROR_KEYS = {"code", "detail", "extra"}


def client_for(caller) -> Client:
    """A client that returns 500 answers instead of raising, with the caller's key."""
    return Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Bearer {caller.raw_key}")


def bank_routes() -> list[str]:
    """Every API route under ``banks/{bank}/`` (from the resolver), with sample values for its other parameters."""
    samples = {"int": "1", "name": "standing", "str": "accept", "key_prefix": "abc"}
    routes = {route.pattern: route for route in bank_api_routes()}  # one per pattern, whatever its methods
    return [
        route.path(
            bank_slug="BANK", **{kwarg: samples[kind] for kwarg, kind in route.converters if kwarg != "bank_slug"}
        )
        for route in routes.values()
    ]


def assert_json_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == ERROR_KEYS and body["code"] == code, body
    return body


@pytest.mark.django_db
def test_a_bank_slug_with_nul_is_a_json_400_on_every_bank_route(caller):
    client = client_for(caller)
    routes = bank_routes()
    assert len(routes) >= 36 and {"/api/v1/banks/BANK/export", "/api/v1/banks/BANK/import"} <= set(routes)
    for route in routes:
        for method in ("get", "post", "patch", "delete"):
            body = {} if method == "get" else "{}"
            response = getattr(client, method)(route.replace("BANK", "ops%00"), body, content_type="application/json")
            assert_json_error(response, 400, "malformed_request")
            response = getattr(client, method)(route.replace("BANK", "no-such-bank"), content_type="application/json")
            assert response.status_code < 500 and set(response.json()) == ERROR_KEYS, (method, route)


@pytest.mark.django_db
def test_metadata_nested_400_levels_is_refused_and_nothing_is_stored(caller):
    metadata = {}
    for _ in range(450):
        metadata = {"a": metadata}
    body = json.dumps({"items": [{"content": "deep", "metadata": metadata}]})
    response = client_for(caller).post(caller.url("retain"), body, content_type="application/json")
    assert_json_error(response, 400, "malformed_request")
    assert "64 levels" in response.json()["detail"]
    deeper = "[" * 100_000 + "]" * 100_000  # deeper than the JSON decoder itself goes
    response = client_for(caller).post(caller.url("retain"), deeper, content_type="application/json")
    assert_json_error(response, 400, "malformed_request")
    assert not Episode.objects.filter(bank=caller.bank).exists()


@pytest.mark.django_db
def test_recall_asking_for_html_answers_json(caller):
    response = client_for(caller).post(
        caller.url("recall"),
        {"query": "x", "budget_tokens": 10},
        content_type="application/json",
        HTTP_ACCEPT="text/html",
    )
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response.json()["budget_tokens"] == 10


def assert_field_code(response, field: tuple[str, ...], code: str) -> None:
    """The response is a validation error whose field at the path ``field`` (as keyed in the input) has ``code``."""
    fields = assert_json_error(response, 400, "validation_error")["extra"]["fields"]
    for key in field:
        fields = fields[key]
    assert fields[0]["code"] == code


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "payload", "field"),
    [
        ("retain", {"items": [{"content": 12345}]}, ("items", "0", "content")),
        ("retain", {"items": [{"content": "x", "subject": ["a"]}]}, ("items", "0", "subject")),
        ("retain", {"items": [{"content": "x"}], "async": "yes"}, ("run_async",)),
        ("retain", {"items": [{"content": "x", "metadata": {"k": "v\u0000"}}]}, ("items", "0", "metadata")),
        ("recall", {"query": "x", "budget_tokens": "10"}, ("budget_tokens",)),
        ("recall", {"query": "x", "budget_tokens": 10.5}, ("budget_tokens",)),
        ("recall", {"query": "x", "budget_tokens": True}, ("budget_tokens",)),
        ("recall", {"query": 7, "budget_tokens": 10}, ("query",)),
        ("recall", {"query": "x", "budget_tokens": 10, "rerank": "false"}, ("rerank",)),
        ("recall", {"query": "x", "budget_tokens": 10, "filters": {"source": ["a", 1]}}, ("filters", "source", "1")),
    ],
)
def test_a_value_of_the_wrong_json_type_is_a_validation_error(caller, path, payload, field):
    response = client_for(caller).post(caller.url(path), payload, content_type="application/json")
    assert_field_code(response, field, "invalid_type")
    assert not Episode.objects.filter(bank=caller.bank).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/banks/../episodes/",
        "/api/v1/banks/%2e%2e/episodes/",
        "/api/v1/banks/BANK/episodes/-1",
        "/api/v1/banks/BANK/episodes/abc",
        "/api/v1/banks/BANK/episodes/1.5",
        "/api/v1/banks/BANK/beliefs/0x10",
        "/api/v1/banks/Upper_Case/",
        "/api/v1/nothing-here",
        "/no-such-page",
    ],
)
def test_unknown_routes_and_malformed_ids_are_json_404s(caller, path):
    assert_json_error(client_for(caller).get(path.replace("BANK", caller.bank.slug)), 404, "not_found")


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["subject=%ff%fe", "subject=a%00b", "subject=%01", "%c3%28=1"])
def test_control_characters_or_broken_utf8_in_a_query_are_a_json_400(caller, query):
    assert_json_error(client_for(caller).get(caller.url(f"episodes/?{query}")), 400, "malformed_request")


@pytest.mark.django_db
def test_a_form_encoded_body_is_415_and_a_stray_format_is_ignored(caller):
    client = client_for(caller)
    response = client.post(
        caller.url("recall"), "query=x&budget_tokens=10", content_type="application/x-www-form-urlencoded"
    )
    assert_json_error(response, 415, "unsupported_media_type")
    response = client.get(caller.url() + "?format=xml")
    assert response.status_code == 200 and response.json()["slug"] == caller.bank.slug


@pytest.mark.parametrize(
    ("status", "reason", "code"),
    [
        (414, "URI Too Long", "uri_too_long"),
        (431, "Request Header Fields Too Large", "headers_too_large"),
        (400, "Bad Request", "malformed_request"),
    ],
)
def test_gunicorn_refusals_are_written_in_the_json_error_format(status, reason, code):
    ours, theirs = socket.socketpair()
    with ours, theirs:
        write_json_error(ours, status, reason, "Invalid request line")
        raw = theirs.recv(65536)
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(f"HTTP/1.1 {status} {reason}".encode())
    assert b"Content-Type: application/json" in head and f"Content-Length: {len(body)}".encode() in head
    assert json.loads(body)["code"] == code and set(json.loads(body)) == ERROR_KEYS
    assert json_error(status, reason, "Invalid request line") == raw


TIMED_BODIES = [
    ("churn/score", {"now": "T"}, ("now",)),
    ("churn/recommend", {"account": "a1", "segment": "smb", "now": "T"}, ("now",)),
    ("churn/interventions", {"account": "a1", "segment": "smb", "play": "call", "occurred_at": "T"}, ("occurred_at",)),
    ("anomaly/triage", {"signature": "s", "host": "h", "now": "T"}, ("now",)),
    ("recall", {"query": "what happened last week", "budget_tokens": 10, "now": "T"}, ("now",)),
    ("recall", {"query": "x", "budget_tokens": 10, "as_of": "T"}, ("as_of",)),
    ("retain", {"items": [{"content": "x", "occurred_at": "T"}]}, ("items", "0", "occurred_at")),
]


@pytest.mark.django_db
@pytest.mark.parametrize("when", ["0001-01-01T00:00:00.0Z", "0999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"])
@pytest.mark.parametrize(("path", "payload", "field"), TIMED_BODIES)
def test_a_time_near_the_ends_of_the_calendar_is_a_validation_error(caller, when, path, payload, field):
    """Year 1 used to overflow the horizon arithmetic of churn scoring (a 500)."""
    body = json.loads(json.dumps(payload).replace('"T"', json.dumps(when)))
    response = client_for(caller).post(caller.url(path), body, content_type="application/json")
    assert_field_code(response, field, "out_of_range")
    assert not Episode.objects.filter(bank=caller.bank).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "param"), [("beliefs/", "as_of"), ("facts/", "known_at"), ("facts/", "valid_at")])
def test_a_time_near_the_ends_of_the_calendar_in_a_query_string_is_a_validation_error(caller, path, param):
    response = client_for(caller).get(caller.url(path), {param: "0001-01-01T00:00:00Z"})
    assert assert_json_error(response, 400, "validation_error")["extra"]["fields"][param][0]["code"] == "out_of_range"


@pytest.mark.django_db
@pytest.mark.parametrize("when", ["1000-01-01T00:00:00Z", "8999-12-31T00:00:00Z"])
def test_times_inside_the_range_are_served(caller, when):
    client = client_for(caller)
    assert client.post(caller.url("churn/score"), {"now": when}, content_type="application/json").status_code == 200
    response = client.post(
        caller.url("retain"), {"items": [{"content": "old", "occurred_at": when}]}, content_type="application/json"
    )
    assert response.status_code == 201, response.content[:300]
    assert Episode.objects.get(bank=caller.bank).occurred_at.year == int(when[:4])
