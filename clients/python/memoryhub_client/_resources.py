"""API resources, written once for both clients.

Each method builds a ``Call`` and hands it to the client's transport: the sync client
returns the parsed model, the async client an awaitable of it. Request bodies go
through the generated request models, so a wrong type fails before it is sent.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

from memoryhub_client import models as m
from memoryhub_client._transport import Call


def _model(model: type):
    return lambda response: model.model_validate(response.json())


def _body(model: type, **fields) -> dict:
    """Validate ``fields`` (None means "not given") against a request model and dump them as JSON."""
    given = {key: value for key, value in fields.items() if value is not None}
    return model.model_validate(given).model_dump(mode="json", exclude_unset=True, by_alias=True)


def _seg(value: Any) -> str:
    return quote(str(value), safe="")


def _bank_path(bank: str, rest: str = "") -> str:
    return f"/api/v1/banks/{_seg(bank)}/{rest}"


def retain_item(item: m.RetainItemRequest | dict | str) -> dict:
    """One retain item as JSON: a plain string is its content."""
    if isinstance(item, str):
        item = {"content": item}
    if isinstance(item, dict):
        item = m.RetainItemRequest.model_validate(item)
    return item.model_dump(mode="json", exclude_none=True, by_alias=True)


class _Resource:
    def __init__(self, client):
        self._client = client

    def _run(self, call: Call):
        return self._client._transport.execute(call)


class Banks(_Resource):
    def list(self, *, limit: int | None = None, offset: int | None = None) -> m.PaginatedBankList:
        params = {"limit": limit, "offset": offset}
        return self._run(Call("GET", "/api/v1/banks/", params=params, parse=_model(m.PaginatedBankList)))

    def create(
        self,
        slug: str,
        *,
        name: str | None = None,
        description: str | None = None,
        background: str | None = None,
        policy: dict | None = None,
        tenant: str | None = None,
    ) -> m.Bank:
        body = _body(
            m.BankCreateRequest,
            slug=slug,
            name=name,
            description=description,
            background=background,
            policy=policy,
            tenant=tenant,
        )
        return self._run(Call("POST", "/api/v1/banks/", json=body, parse=_model(m.Bank)))

    def get(self, bank: str) -> m.Bank:
        return self._run(Call("GET", _bank_path(bank), parse=_model(m.Bank)))

    def update(
        self,
        bank: str,
        *,
        name: str | None = None,
        description: str | None = None,
        background: str | None = None,
        policy: dict | None = None,
    ) -> m.Bank:
        body = _body(m.BankUpdateRequest, name=name, description=description, background=background, policy=policy)
        return self._run(Call("PATCH", _bank_path(bank), json=body, parse=_model(m.Bank)))

    def delete(self, bank: str) -> dict:
        """Forget the whole bank; returns the erasure receipt (kinds and counts)."""
        return self._run(Call("DELETE", _bank_path(bank)))


class RetainBatches(_Resource):
    def get(self, bank: str, batch_id: int) -> m.RetainBatch:
        return self._run(Call("GET", _bank_path(bank, f"retain-batches/{int(batch_id)}"), parse=_model(m.RetainBatch)))


class Episodes(_Resource):
    def list(
        self, bank: str, *, limit: int | None = None, offset: int | None = None, **filters
    ) -> m.PaginatedEpisodeList:
        """Filters: ``source``, ``subject``, ``provenance``, ``occurred_after/before``, ``recorded_after/before``."""
        params = {"limit": limit, "offset": offset, **filters}
        return self._run(
            Call("GET", _bank_path(bank, "episodes/"), params=params, parse=_model(m.PaginatedEpisodeList))
        )

    def get(self, bank: str, episode_id: int) -> m.Episode:
        return self._run(Call("GET", _bank_path(bank, f"episodes/{int(episode_id)}"), parse=_model(m.Episode)))

    def delete(self, bank: str, episode_id: int) -> None:
        return self._run(Call("DELETE", _bank_path(bank, f"episodes/{int(episode_id)}")))

    def release(self, bank: str, episode_id: int) -> m.Episode:
        """Release a flagged episode from quarantine (admin)."""
        path = _bank_path(bank, f"episodes/{int(episode_id)}/release")
        return self._run(Call("POST", path, parse=_model(m.Episode)))


class Facts(_Resource):
    def list(
        self,
        bank: str,
        *,
        valid_at: datetime | str | None = None,
        known_at: datetime | str | None = None,
        limit: int | None = None,
        offset: int | None = None,
        **filters,
    ) -> m.PaginatedFactList:
        """Filters: ``subject``, ``predicate``, ``object``, ``episode``, ``extractor``, ``current``."""
        params = {"valid_at": valid_at, "known_at": known_at, "limit": limit, "offset": offset, **filters}
        return self._run(Call("GET", _bank_path(bank, "facts/"), params=params, parse=_model(m.PaginatedFactList)))

    def get(self, bank: str, fact_id: int) -> m.Fact:
        return self._run(Call("GET", _bank_path(bank, f"facts/{int(fact_id)}"), parse=_model(m.Fact)))


class Beliefs(_Resource):
    def list(
        self, bank: str, *, limit: int | None = None, offset: int | None = None, **filters
    ) -> m.PaginatedBeliefList:
        """Filters: ``status``, ``subject``, ``predicate``, ``object``, ``min_proof_count``, ``min_confidence``."""
        params = {"limit": limit, "offset": offset, **filters}
        return self._run(Call("GET", _bank_path(bank, "beliefs/"), params=params, parse=_model(m.PaginatedBeliefList)))

    def as_of(self, bank: str, at: datetime | str, *, limit: int | None = None, offset: int | None = None) -> dict:
        """What the bank believed at ``at``: each belief's version then (a page of plain rows)."""
        params = {"as_of": at, "limit": limit, "offset": offset}
        return self._run(Call("GET", _bank_path(bank, "beliefs/"), params=params))

    def get(self, bank: str, belief_id: int) -> m.BeliefDetail:
        """One belief with its evidence quotes and version history."""
        return self._run(Call("GET", _bank_path(bank, f"beliefs/{int(belief_id)}"), parse=_model(m.BeliefDetail)))


class MentalModels(_Resource):
    def list(self, bank: str, *, limit: int | None = None, offset: int | None = None) -> m.PaginatedMentalModelList:
        params = {"limit": limit, "offset": offset}
        path = _bank_path(bank, "mental-models/")
        return self._run(Call("GET", path, params=params, parse=_model(m.PaginatedMentalModelList)))

    def create(
        self,
        bank: str,
        name: str,
        question: str,
        *,
        belief_filter: dict | None = None,
        max_beliefs: int | None = None,
    ) -> m.MentalModel:
        body = _body(
            m.MentalModelRequest, name=name, question=question, belief_filter=belief_filter, max_beliefs=max_beliefs
        )
        return self._run(Call("POST", _bank_path(bank, "mental-models/"), json=body, parse=_model(m.MentalModel)))

    def get(self, bank: str, name: str) -> m.MentalModel:
        """The stored answer: one row read, no retrieval."""
        return self._run(Call("GET", _bank_path(bank, f"mental-models/{_seg(name)}"), parse=_model(m.MentalModel)))

    def delete(self, bank: str, name: str) -> None:
        return self._run(Call("DELETE", _bank_path(bank, f"mental-models/{_seg(name)}")))

    def refresh(self, bank: str, name: str) -> m.MentalModel:
        path = _bank_path(bank, f"mental-models/{_seg(name)}/refresh")
        return self._run(Call("POST", path, parse=_model(m.MentalModel)))


class ReviewItems(_Resource):
    def list(
        self,
        bank: str,
        *,
        kind: str | None = None,
        status: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> m.PaginatedReviewItemList:
        params = {"kind": kind, "status": status, "limit": limit, "offset": offset}
        path = _bank_path(bank, "review-items/")
        return self._run(Call("GET", path, params=params, parse=_model(m.PaginatedReviewItemList)))

    def get(self, bank: str, item_id: int) -> m.ReviewItem:
        return self._run(Call("GET", _bank_path(bank, f"review-items/{int(item_id)}"), parse=_model(m.ReviewItem)))

    def decide(self, bank: str, item_id: int, decision: str, *, comment: str | None = None) -> m.ReviewItem:
        body = _body(m.DecisionRequest, comment=comment)
        path = _bank_path(bank, f"review-items/{int(item_id)}/{_seg(decision)}")
        return self._run(Call("POST", path, json=body, parse=_model(m.ReviewItem)))

    def accept(self, bank: str, item_id: int, *, comment: str | None = None) -> m.ReviewItem:
        return self.decide(bank, item_id, "accept", comment=comment)

    def reject(self, bank: str, item_id: int, *, comment: str | None = None) -> m.ReviewItem:
        return self.decide(bank, item_id, "reject", comment=comment)

    def overturn(self, bank: str, item_id: int, *, comment: str | None = None) -> m.ReviewItem:
        return self.decide(bank, item_id, "overturn", comment=comment)


class ErasureRequests(_Resource):
    def create(self, subject: str, *, bank: str | None = None, tenant: str | None = None) -> m.ErasureRequest:
        """Erase every episode of ``subject`` (in ``bank``, or tenant-wide) and all that was derived from them."""
        body = _body(m.ErasureRequestRequest, subject=subject, bank=bank, tenant=tenant)
        return self._run(Call("POST", "/api/v1/erasure-requests/", json=body, parse=_model(m.ErasureRequest)))

    def list(
        self, *, tenant: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> m.PaginatedErasureRequestList:
        params = {"tenant": tenant, "limit": limit, "offset": offset}
        return self._run(
            Call("GET", "/api/v1/erasure-requests/", params=params, parse=_model(m.PaginatedErasureRequestList))
        )

    def get(self, request_id: int, *, tenant: str | None = None) -> m.ErasureRequest:
        path = f"/api/v1/erasure-requests/{int(request_id)}"
        return self._run(Call("GET", path, params={"tenant": tenant}, parse=_model(m.ErasureRequest)))


class ApiKeys(_Resource):
    def list(
        self, *, tenant: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> m.PaginatedApiKeyList:
        params = {"tenant": tenant, "limit": limit, "offset": offset}
        return self._run(Call("GET", "/api/v1/api-keys/", params=params, parse=_model(m.PaginatedApiKeyList)))

    def issue(
        self,
        name: str,
        *,
        bank: str | None = None,
        scopes: Sequence[str] | None = None,
        expires_at: datetime | None = None,
        rate_limit_per_minute: int | None = None,
        tenant: str | None = None,
    ) -> m.ApiKeyIssued:
        """A new key; its secret (``.key``) is shown once."""
        body = _body(
            m.ApiKeyRequest,
            name=name,
            bank=bank,
            scopes=list(scopes) if scopes is not None else None,
            expires_at=expires_at,
            rate_limit_per_minute=rate_limit_per_minute,
            tenant=tenant,
        )
        return self._run(Call("POST", "/api/v1/api-keys/", json=body, parse=_model(m.ApiKeyIssued)))

    def revoke(self, prefix: str, *, tenant: str | None = None) -> None:
        return self._run(Call("DELETE", f"/api/v1/api-keys/{_seg(prefix)}", params={"tenant": tenant}))


class Background(_Resource):
    def status(self, bank: str) -> m.BackgroundStatus:
        return self._run(Call("GET", _bank_path(bank, "background"), parse=_model(m.BackgroundStatus)))

    def run(self, bank: str) -> m.BackgroundStatus:
        """Queue extraction and consolidation for the bank now."""
        return self._run(Call("POST", _bank_path(bank, "background"), parse=_model(m.BackgroundStatus)))


class AuditEvents(_Resource):
    def list(
        self,
        bank: str,
        *,
        action: str | None = None,
        since: datetime | str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> m.PaginatedAuditEventList:
        params = {"action": action, "since": since, "limit": limit, "offset": offset}
        path = _bank_path(bank, "audit-events/")
        return self._run(Call("GET", path, params=params, parse=_model(m.PaginatedAuditEventList)))


class Core(_Resource):
    """The engine verbs: retain, recall, reflect (exposed on the client itself)."""

    def retain_call(
        self,
        bank: str,
        items: Iterable[m.RetainItemRequest | dict | str],
        *,
        idempotency_key: str | None = None,
        run_async: bool = False,
    ) -> Call:
        body: dict[str, Any] = {"items": [retain_item(item) for item in items]}
        if run_async:
            body["async"] = True
        # A key per call by default: a retry after a lost answer replays the first answer instead of writing twice.
        headers = {"Idempotency-Key": idempotency_key or f"client-{uuid.uuid4()}"}

        def parse(response):
            data = response.json()
            return m.RetainBatch.model_validate(data) if response.status_code == 202 else m.Retain.model_validate(data)

        return Call("POST", _bank_path(bank, "retain"), json=body, headers=headers, parse=parse)

    def recall(
        self,
        bank: str,
        query: str,
        *,
        budget_tokens: int,
        filters: dict | None = None,
        as_of: datetime | None = None,
        now: datetime | None = None,
        channels: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        rerank: bool | None = None,
        explain: bool | None = None,
        render: str | None = None,
    ) -> m.Recall:
        body = _body(
            m.RecallRequest,
            query=query,
            budget_tokens=budget_tokens,
            filters=filters,
            as_of=as_of,
            now=now,
            channels=list(channels) if channels else None,
            kinds=list(kinds) if kinds else None,
            rerank=rerank,
            explain=explain,
            render=render,
        )
        return self._run(Call("POST", _bank_path(bank, "recall"), json=body, parse=_model(m.Recall)))

    def reflect(self, bank: str, question: str, *, budget_tokens: int) -> m.Reflect:
        body = _body(m.ReflectRequest, question=question, budget_tokens=budget_tokens)
        return self._run(Call("POST", _bank_path(bank, "reflect"), json=body, parse=_model(m.Reflect)))
