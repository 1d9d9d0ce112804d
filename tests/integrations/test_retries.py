"""Retries: a real 429 from the service's rate limiter, and the backoff policy on 503 and broken connections."""

from __future__ import annotations

import httpx
import pytest
from memoryhub_client import MemoryHub, errors

from banks.services.api_keys import api_key_issue


def test_rate_limited_calls_wait_as_long_as_retry_after_says_then_raise(hub_for, caller, sleeps):
    issued = api_key_issue(tenant=caller.tenant, name="tight", rate_limit_per_minute=1)
    hub = hub_for(issued.raw_key, max_retries=2)
    assert hub.banks.get(caller.bank.slug).slug == caller.bank.slug
    with pytest.raises(errors.RateLimited) as limited:
        hub.banks.get(caller.bank.slug)
    retry_after = limited.value.retry_after
    assert limited.value.status_code == 429 and 1 <= retry_after <= 60
    # Two retries, each waiting what the server asked (the window does not move while the test runs).
    assert len(sleeps) == 2 and all(abs(wait - retry_after) <= 1 for wait in sleeps)


def test_a_retry_after_longer_than_the_client_will_wait_fails_at_once(hub_for, caller, sleeps):
    issued = api_key_issue(tenant=caller.tenant, name="tight", rate_limit_per_minute=1)
    hub = hub_for(issued.raw_key, max_retries=5, max_retry_wait=0.5)
    hub.banks.list()
    with pytest.raises(errors.RateLimited):
        hub.banks.list()
    assert sleeps == []


BANK = {"slug": "ops", "name": "Ops", "tenant": "t", "description": "", "background": "", "policy": {},
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}  # fmt: skip


def _scripted(responses: list):
    """A transport answering from a script (testing the client's own retry policy, not the service)."""
    seen = []

    def handler(request: httpx.Request):
        seen.append(request)
        step = responses[min(len(seen) - 1, len(responses) - 1)]
        if isinstance(step, Exception):
            raise step
        return step

    return httpx.MockTransport(handler), seen


def test_503_is_retried_with_exponential_backoff_and_jitter():
    unavailable = httpx.Response(503, json={"code": "embedding_unavailable", "detail": "loading", "extra": {}})
    transport, seen = _scripted([unavailable, unavailable, httpx.Response(200, json=BANK)])
    waits = []
    hub = MemoryHub("http://hub", transport=transport, sleep=waits.append, backoff_base=1.0)
    assert hub.banks.get("ops").slug == "ops"
    assert len(seen) == 3 and 0 <= waits[0] <= 1.0 and 0 <= waits[1] <= 2.0


def test_503_that_persists_raises_the_code_s_exception():
    unavailable = httpx.Response(503, json={"code": "embedding_unavailable", "detail": "loading", "extra": {}})
    transport, seen = _scripted([unavailable])
    hub = MemoryHub("http://hub", transport=transport, sleep=lambda _: None, max_retries=2)
    with pytest.raises(errors.EmbeddingUnavailable):
        hub.banks.get("ops")
    assert len(seen) == 3


def test_broken_connections_are_retried_only_when_repeating_is_safe():
    ok = httpx.Response(201, json=BANK)
    transport, seen = _scripted([httpx.ReadTimeout("slow"), ok])
    hub = MemoryHub("http://hub", transport=transport, sleep=lambda _: None)
    with pytest.raises(errors.TransportError):
        hub.banks.create("ops")  # a POST without an idempotency key may have been applied: not resent
    assert len(seen) == 1
    transport, seen = _scripted([httpx.ConnectError("refused"), ok])
    hub = MemoryHub("http://hub", transport=transport, sleep=lambda _: None)
    assert hub.banks.create("ops").slug == "ops"  # the request never left: safe to send again
    retain_ok = httpx.Response(201, json={"batch_id": 1, "created": 1, "duplicates": 0, "replayed": False,
                                          "items": [{"episode_id": 1, "status": "created"}], "redacted": {},
                                          "usage": {"tokens": 1, "items": 1, "elapsed_ms": 1.0}})  # fmt: skip
    transport, seen = _scripted([httpx.ReadTimeout("slow"), retain_ok])
    hub = MemoryHub("http://hub", transport=transport, sleep=lambda _: None)
    assert hub.retain("ops", ["x"]).created == 1  # retain carries an Idempotency-Key: the resend is a replay
    assert seen[0].headers["Idempotency-Key"] == seen[1].headers["Idempotency-Key"]


def test_a_non_json_error_still_raises_by_status():
    transport, _ = _scripted([httpx.Response(502, text="<html>bad gateway</html>")])
    with pytest.raises(errors.ServerError) as failed:
        MemoryHub("http://hub", transport=transport, sleep=lambda _: None).banks.list()
    assert failed.value.code == "http_502" and "bad gateway" in failed.value.detail
