"""A probe run: scratch banks and seed items, the checks in order, clean-up, the report."""

from __future__ import annotations

import json
import secrets
import time
import traceback
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from mhctl.probe.api import Api, ProbeSetupError, bank_path

# Lengths (in words) of the items the budget check packs: short, long and one past any small budget.
_SEED_LENGTHS = (3, 8, 20, 45, 90, 160, 240, 400)
_WORDS = "ledger invoice latency replica backup deploy rollback quota tenant cache shard queue".split()


@dataclass
class Result:
    name: str
    status: str  # pass, fail or skip
    detail: str
    failures: list[str] = field(default_factory=list)
    duration_ms: float = 0.0


@dataclass
class Bank:
    slug: str
    scratch: bool


class Run:
    """State shared by the checks: the two callers, their banks, and what the probe wrote into bank A."""

    def __init__(self, *, url: str, key_a: str, key_b: str, bank_a: str | None, bank_b: str | None,
                 wait_seconds: float = 120.0):  # fmt: skip
        self.id = secrets.token_hex(4)
        self.url = url.rstrip("/")
        self.a, self.b, self.anonymous = Api(url, key_a), Api(url, key_b), Api(url, None)
        self.given = {"a": bank_a, "b": bank_b}
        self.bank_a: Bank | None = None
        self.bank_b: Bank | None = None
        self.wait_seconds = wait_seconds
        self.subject = f"mhprobe:{self.id}"
        self.marker = f"mhprobe{self.id}"
        self.episode_ids: list[int] = []  # every episode the probe retained into bank A
        self.path_values: dict[str, str] = {}  # URL parameter -> one of bank A's objects
        self.schema: dict | None = None
        self.erasure_ids: list[int] = []

    # --- set-up -------------------------------------------------------------------------
    def setup(self) -> None:
        self.bank_a = self._bank(self.a, "a")
        self.bank_b = self._bank(self.b, "b")
        texts = [f"{self.marker} budget seed {n}: " + " ".join(_WORDS[(n + i) % len(_WORDS)] for i in range(length))
                 for n, length in enumerate(_SEED_LENGTHS)]  # fmt: skip
        answer = self.retain(texts)
        self.path_values.update(batch_id=str(answer["batch_id"]), episode_id=str(self.episode_ids[0]))
        model = self.a.call("POST", bank_path(self.bank_a.slug, "mental-models/"),
                            json={"name": f"mhprobe-{self.id}", "question": f"What is {self.marker}?"})  # fmt: skip
        if model.status_code < 300:
            self.path_values["name"] = f"mhprobe-{self.id}"

    def _bank(self, api: Api, side: str) -> Bank:
        if self.given[side]:
            if api.call("GET", bank_path(self.given[side])).status_code != 200:
                raise ProbeSetupError(f"key {side.upper()} cannot read bank {self.given[side]!r}")
            return Bank(self.given[side], scratch=False)
        slug = f"mhprobe-{self.id}-{side}"
        response = api.call("POST", "/api/v1/banks/", json={"slug": slug, "name": f"mhctl probe {self.id} ({side})"})
        if response.status_code != 201:
            raise ProbeSetupError(
                f"key {side.upper()} could not create a scratch bank ({response.status_code} "
                f"{response.text[:200]}); give an existing bank with --bank-{side}"
            )
        return Bank(slug, scratch=True)

    def retain(self, texts: list[str], *, subject: str | None = None) -> dict:
        """Retain into bank A (committed when this returns); the episodes are remembered for clean-up."""
        items = [{"content": t, "subject": subject or self.subject, "source": "mhctl-probe"} for t in texts]
        answer = self.a.json("POST", bank_path(self.bank_a.slug, "retain"), json={"items": items})
        self.episode_ids += [o["episode_id"] for o in answer["items"] if o.get("episode_id")]
        return answer

    def recall(self, api: Api, query: str, budget: int, **options) -> dict:
        body = {"query": query, "budget_tokens": budget, **options}
        return api.json("POST", bank_path(self.bank_a.slug, "recall"), json=body)

    def bank_routes(self) -> list[tuple[str, str]]:
        """(path template, method) for every route under a bank in the published OpenAPI schema."""
        paths = (self.schema or {}).get("paths", {})
        return [(path, method.upper()) for path, operations in sorted(paths.items()) if "{bank_slug}" in path
                for method in sorted(operations) if method in {"get", "post", "put", "patch", "delete"}]  # fmt: skip

    def wait_for_erasure(self, api: Api, request_id: int) -> dict:
        deadline = time.monotonic() + self.wait_seconds
        while True:
            request = api.json("GET", f"/api/v1/erasure-requests/{request_id}")
            if request["status"] in ("done", "failed") or time.monotonic() > deadline:
                return request
            time.sleep(0.5)

    # --- checks and clean-up ------------------------------------------------------------
    def execute(self, checks: list[tuple[str, object]]) -> list[Result]:
        results = []
        started = time.perf_counter()
        try:
            self.setup()
        except Exception as exc:  # nothing to check without the scratch banks
            results.append(Result("setup", "fail", _describe(exc), duration_ms=_ms(started)))
            results.append(self._timed("cleanup", self.cleanup))
            return results
        results.append(Result("setup", "pass", f"banks {self.bank_a.slug} (A) and {self.bank_b.slug} (B)",
                              duration_ms=_ms(started)))  # fmt: skip
        for name, check in checks:
            results.append(self._timed(name, lambda check=check: check(self)))
        results.append(self._timed("cleanup", self.cleanup))
        return results

    @staticmethod
    def _timed(name: str, function) -> Result:
        started = time.perf_counter()
        try:
            outcome = function()
        except SkipCheck as skip:
            return Result(name, "skip", str(skip), duration_ms=_ms(started))
        except Exception as exc:
            return Result(name, "fail", _describe(exc), [traceback.format_exc(limit=3)], _ms(started))
        detail, failures = outcome
        return Result(name, "fail" if failures else "pass", detail, failures, _ms(started))

    def cleanup(self) -> tuple[str, list[str]]:
        """Scratch banks are deleted; on given banks the probe erases its subject and deletes its episodes."""
        done, failures = [], []
        for api, bank in ((self.a, self.bank_a), (self.b, self.bank_b)):
            if bank is None:
                continue
            if bank.scratch:
                api.call("DELETE", bank_path(bank.slug))
                if api.call("GET", bank_path(bank.slug)).status_code != 404:
                    failures.append(f"scratch bank {bank.slug} still answers after DELETE")
                done.append(f"deleted {bank.slug}")
            elif api is self.a:
                for episode in self.episode_ids:
                    api.call("DELETE", bank_path(bank.slug, f"episodes/{episode}"))
                left = [
                    e
                    for e in self.episode_ids
                    if api.call("GET", bank_path(bank.slug, f"episodes/{e}")).status_code != 404
                ]
                if left:
                    failures.append(f"{len(left)} probe episodes still in {bank.slug}: {left[:5]}")
                done.append(f"deleted {len(self.episode_ids)} probe episodes from {bank.slug}")
        for api in (self.a, self.b, self.anonymous):
            api.close()
        return "; ".join(done) or "nothing to remove", failures


class SkipCheck(Exception):
    """The check cannot run with these keys (said why); it is neither passed nor failed."""


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def report(results: list[Result], *, url: str, run_id: str, started_at: datetime) -> dict:
    return {
        "target": url,
        "run": run_id,
        "started_at": started_at.isoformat(),
        "finished_at": datetime.now(UTC).isoformat(),
        "passed": all(r.status != "fail" for r in results),
        "checks": [asdict(r) for r in results],
    }


def table(results: list[Result]) -> str:
    width = max(len(r.name) for r in results)
    lines = [f"{'check'.ljust(width)}  result  detail"]
    for r in results:
        lines.append(f"{r.name.ljust(width)}  {r.status.upper():<6}  {r.detail}")
        lines += [f"{''.ljust(width)}          - {failure.splitlines()[0][:200]}" for failure in r.failures[:8]]
        if len(r.failures) > 8:
            lines.append(f"{''.ljust(width)}          … {len(r.failures) - 8} more (see --json-out)")
    return "\n".join(lines)


def dumps(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)
