"""Raw HTTP for the probe: it judges status codes, headers and bodies, so it does not go through the client."""

from __future__ import annotations

import time

import httpx
from memoryhub_client.errors import parse_retry_after

_MAX_RATE_LIMIT_WAITS = 3


class Api:
    """One key against one server; a 429 is waited out (``Retry-After``) a few times, never reported as a result."""

    def __init__(self, url: str, key: str | None, *, timeout: float = 30.0):
        headers = {"Accept": "application/json", "User-Agent": "mhctl-probe"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self.url = url.rstrip("/")
        self.http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout)

    def call(self, method: str, path: str, **kwargs) -> httpx.Response:
        for _ in range(_MAX_RATE_LIMIT_WAITS):
            response = self.http.request(method, path, **kwargs)
            if response.status_code != 429:
                return response
            time.sleep(min(parse_retry_after(response.headers.get("Retry-After")) or 1.0, 30.0))
        return response

    def json(self, method: str, path: str, **kwargs) -> dict:
        """The JSON answer of a call that must succeed (raises ``ProbeSetupError`` otherwise)."""
        response = self.call(method, path, **kwargs)
        if response.status_code >= 400:
            raise ProbeSetupError(f"{method} {path} answered {response.status_code}: {response.text[:300]}")
        return response.json() if response.content else {}

    def close(self) -> None:
        self.http.close()


class ProbeSetupError(Exception):
    """The probe could not prepare or clean up (not a finding about the deployment's protections)."""


def bank_path(bank: str, rest: str = "") -> str:
    return f"/api/v1/banks/{bank}/{rest}"
