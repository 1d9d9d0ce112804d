"""Checks of who may reach what and how refusals look: schema, isolation, rate-limit headers, JSON errors."""

from __future__ import annotations

import re
import time

from mhctl.probe.api import bank_path
from mhctl.probe.runner import Run

RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
# Values for URL parameters the probe has no object of its own for: any id works, the bank is not the caller's.
_PLACEHOLDERS = {"decision": "accept", "name": "mhprobe"}


def check_schema(run: Run) -> tuple[str, list[str]]:
    response = run.a.call("GET", "/api/schema/", params={"format": "json"})
    if response.status_code != 200:
        return "", [f"GET /api/schema/?format=json answered {response.status_code}"]
    run.schema = response.json()
    routes = run.bank_routes()
    failures = [] if routes else ["the schema lists no route under /api/v1/banks/{bank_slug}/"]
    return f"{len(run.schema.get('paths', {}))} paths, {len(routes)} bank operations", failures


def _fill(template: str, bank: str, values: dict[str, str]) -> str:
    def value(match: re.Match) -> str:
        name = match.group(1)
        return bank if name == "bank_slug" else values.get(name, _PLACEHOLDERS.get(name, "1"))

    return re.sub(r"\{(\w+)\}", value, template)


def _leak(response, run: Run) -> str | None:
    """What is wrong with an answer to a caller who may not see bank A: anything but a JSON 404 that says nothing."""
    if response.status_code != 404:
        return f"answered {response.status_code}"
    try:
        body = response.json()
    except ValueError:
        return "404 without a JSON body"
    if not isinstance(body, dict) or "code" not in body:
        return "404 without an error code"
    if run.marker in response.text or run.bank_a.slug in body.get("detail", ""):
        return "404 that names bank A's content"
    return None


def check_isolation(run: Run) -> tuple[str, list[str]]:
    """Key B on every bank route of bank A, and on its own bank with bank A's object ids: 404 every time."""
    if run.schema is None:
        check_schema(run)
    failures, sent = [], 0
    before = run.a.json("GET", bank_path(run.bank_a.slug, "episodes/"), params={"limit": 1})["count"]
    for template, method in run.bank_routes():
        if not run.bank_a.scratch and method in {"DELETE", "PATCH"} and template.endswith("{bank_slug}/"):
            continue  # never risk a bank the user gave us
        body = {} if method in {"POST", "PUT", "PATCH"} else None
        path = _fill(template, run.bank_a.slug, run.path_values)
        problem = _leak(run.b.call(method, path, json=body), run)
        sent += 1
        if problem:
            failures.append(f"key B {method} {path}: {problem}")
        if method == "GET":  # and the other way round
            path_b = _fill(template, run.bank_b.slug, {})
            response = run.a.call("GET", path_b)
            sent += 1
            if response.status_code != 404:
                failures.append(f"key A GET {path_b}: answered {response.status_code}")
        if set(re.findall(r"\{(\w+)\}", template)) & set(run.path_values) - {"bank_slug"}:
            path = _fill(template, run.bank_b.slug, run.path_values)  # B's own bank, A's object
            response = run.b.call(method, path, json=body)
            sent += 1
            if response.status_code < 400 or run.marker in response.text:
                failures.append(f"key B {method} {path} (bank A's object in bank B): answered {response.status_code}")
    for request_id in run.erasure_ids:
        sent += 1
        if run.b.call("GET", f"/api/v1/erasure-requests/{request_id}").status_code != 404:
            failures.append(f"key B reads bank A's erasure request {request_id}")
    listed = [b["slug"] for b in run.b.json("GET", "/api/v1/banks/", params={"limit": 500})["results"]]
    if run.bank_a.slug in listed:
        failures.append(f"key B's bank list shows {run.bank_a.slug}")
    after = run.a.json("GET", bank_path(run.bank_a.slug, "episodes/"), params={"limit": 1})["count"]
    if after != before:
        failures.append(f"bank A held {before} episodes before key B's requests and {after} after")
    return f"{sent} requests over {len(run.bank_routes())} bank operations", failures


def _rate_problems(response, label: str) -> list[str]:
    missing = [h for h in RATE_HEADERS if h not in response.headers]
    if missing:
        return [f"{label}: no {', '.join(missing)}"]
    try:
        limit, remaining, reset = (int(response.headers[h]) for h in RATE_HEADERS)
    except ValueError:
        return [f"{label}: rate-limit headers are not integers"]
    problems = []
    if not 0 <= remaining <= limit:
        problems.append(f"{label}: remaining {remaining} outside 0..{limit}")
    if reset < time.time() - 5:
        problems.append(f"{label}: reset {reset} is in the past")
    return problems


def check_rate_limit_headers(run: Run) -> tuple[str, list[str]]:
    ok = run.a.call("GET", bank_path(run.bank_a.slug))
    refused = run.b.call("GET", bank_path(run.bank_a.slug))
    first = int(ok.headers.get("X-RateLimit-Remaining", "0") or 0)
    again = run.a.call("GET", bank_path(run.bank_a.slug))
    failures = _rate_problems(ok, "200 answer") + _rate_problems(refused, "404 answer")
    if not failures and int(again.headers["X-RateLimit-Remaining"]) >= first:
        failures.append(
            f"X-RateLimit-Remaining did not go down ({first} then {again.headers['X-RateLimit-Remaining']})"
        )
    return (
        f"limit {ok.headers.get('X-RateLimit-Limit', '?')}/min, scope {ok.headers.get('X-RateLimit-Scope', '?')}",
        failures,
    )


def check_json_errors(run: Run) -> tuple[str, list[str]]:
    recall = bank_path(run.bank_a.slug, "recall")
    cases = [
        ("no credentials", run.anonymous.call("GET", bank_path(run.bank_a.slug)), 401),
        (
            "unknown key",
            run.anonymous.call(
                "GET", bank_path(run.bank_a.slug), headers={"Authorization": "Bearer mh_probe_not_a_key"}
            ),
            401,
        ),  # fmt: skip
        (
            "malformed JSON",
            run.a.call("POST", recall, content=b'{"query": ', headers={"Content-Type": "application/json"}),
            400,
        ),
        ("budget of zero", run.a.call("POST", recall, json={"query": "x", "budget_tokens": 0}), 400),
        ("unknown field", run.a.call("POST", recall, json={"query": "x", "budget_tokens": 10, "mhprobe": 1}), 400),
        ("wrong method", run.a.call("DELETE", recall), 405),
        ("unknown route", run.a.call("GET", "/api/v1/mhprobe-no-such-route/"), 404),
        ("unknown bank", run.a.call("GET", bank_path(f"mhprobe-{run.id}-absent")), 404),
    ]
    failures = []
    for label, response, status in cases:
        if response.status_code != status:
            failures.append(f"{label}: answered {response.status_code}, expected {status}")
            continue
        try:
            body = response.json()
        except ValueError:
            failures.append(f"{label}: {status} is not JSON ({response.headers.get('Content-Type')})")
            continue
        if not (isinstance(body, dict) and isinstance(body.get("code"), str) and body.get("detail")):
            failures.append(f"{label}: {status} without 'code' and 'detail'")
    return f"{len(cases)} refusals", failures
