"""Rate limits: a sliding one-minute window in Redis per API key and per tenant, tested at the window edge."""

import random
from unittest import mock

import pytest
from django.conf import settings
from django.test import override_settings
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter
from rest_framework.test import APIClient

from banks import throttling
from banks.services.api_keys import api_key_issue


class Clock:
    """The clock the windows are kept in, moved by hand."""

    def __init__(self, now: float):
        self.now = now

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock():
    fake = Clock(1_000_000.0)  # windows of a fixed limiter would start at 999,960 and 1,000,020
    with mock.patch("limits.storage.redis.time", fake), mock.patch.object(throttling, "clock", fake.time):
        yield fake


def client_for(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_key}")
    return client


def test_a_burst_at_the_end_of_a_minute_is_not_followed_by_a_second_one(caller, clock):
    key = api_key_issue(tenant=caller.tenant, name="edge", rate_limit_per_minute=5)
    client = client_for(key.raw_key)
    remaining = []
    for second in range(5):  # 1,000,015 .. 1,000,019: the last seconds of a clock minute
        clock.now = 1_000_015.0 + second
        response = client.get(caller.url(""))
        assert response.status_code == 200
        remaining.append(int(response["X-RateLimit-Remaining"]))
        assert response["X-RateLimit-Limit"] == "5" and response["X-RateLimit-Scope"] == "key"
        assert int(response["X-RateLimit-Reset"]) == 1_000_075  # the first request leaves the window then
    assert remaining == [4, 3, 2, 1, 0]

    clock.now = 1_000_021.0  # a new clock minute: a fixed window would allow 5 more here
    refused = client.get(caller.url(""))
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert refused["Retry-After"] == "54" and refused["X-RateLimit-Remaining"] == "0"
    clock.now = 1_000_074.9  # one tenth of a second before the first request is a minute old
    assert client.get(caller.url("")).status_code == 429
    clock.now = 1_000_075.1  # the first request left the window: exactly one slot is free
    assert client.get(caller.url("")).status_code == 200
    assert client.get(caller.url("")).status_code == 429
    clock.now = 1_000_076.1
    assert client.get(caller.url("")).status_code == 200


def test_no_sixty_seconds_ever_hold_more_than_the_limit(caller, clock):
    key = api_key_issue(tenant=caller.tenant, name="steady", rate_limit_per_minute=7)
    client = client_for(key.raw_key)
    rng = random.Random(14)
    accepted = []
    for _ in range(150):  # about 5 minutes of bursty traffic
        clock.now += rng.choice([0.05, 0.2, 1.0, 3.0, 9.0])
        if client.get(caller.url("")).status_code == 200:
            accepted.append(clock.now)
    assert len(accepted) >= 20  # the limiter lets traffic through as slots free up
    for start in accepted:
        assert sum(1 for moment in accepted if start <= moment < start + 60) <= 7


def test_the_tenant_limit_spans_all_its_keys_and_spares_other_tenants(caller, other_caller, clock):
    # Issued under the default tenant limit (a key's own limit is capped at its tenant's), then the tenant's shrinks.
    first = client_for(api_key_issue(tenant=caller.tenant, name="a", rate_limit_per_minute=100).raw_key)
    second = client_for(api_key_issue(tenant=caller.tenant, name="b", rate_limit_per_minute=100).raw_key)
    with override_settings(MEMORYHUB={**settings.MEMORYHUB, "TENANT_RATE_LIMIT_PER_MINUTE": 4}):
        statuses = [client.get(caller.url("")).status_code for client in (first, second, first, second)]
        assert statuses == [200, 200, 200, 200]
        refused = second.get(caller.url(""))
        assert refused.status_code == 429 and refused["X-RateLimit-Scope"] == "tenant"
        assert refused["X-RateLimit-Limit"] == "4"
        assert other_caller.client.get(other_caller.url("")).status_code == 200  # another tenant, its own window
        clock.now += 61
        allowed = first.get(caller.url(""))
        assert allowed.status_code == 200
        # A minute later the tenant's window is empty again, and the tighter of the two limits is reported.
        assert allowed["X-RateLimit-Scope"] == "tenant" and allowed["X-RateLimit-Remaining"] == "3"


def test_an_unreachable_limiter_lets_requests_through(caller, monkeypatch):
    unreachable = RedisStorage("redis://127.0.0.1:1/0", socket_timeout=0.2, socket_connect_timeout=0.2)
    monkeypatch.setattr(throttling, "_limiter", MovingWindowRateLimiter(unreachable))
    response = caller.client.get(caller.url(""))
    assert response.status_code == 200 and "X-RateLimit-Limit" not in response


def test_the_schema_documents_the_rate_limit_answer(client):
    schema = client.get("/api/schema/?format=json").json()
    recall = schema["paths"]["/api/v1/banks/{bank_slug}/recall"]["post"]["responses"]
    assert set(recall["429"]["headers"]) >= {"Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining"}
