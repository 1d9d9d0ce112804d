"""A LangGraph ``BaseStore`` on MemoryHub: a graph's long-term memory in a bank (extra ``[langgraph]``).

    from langgraph.graph import StateGraph
    from memoryhub_client.langgraph import MemoryHubStore

    store = MemoryHubStore()  # MEMORYHUB_URL, MEMORYHUB_API_KEY
    store.put(("ops", "user-42"), "diet", {"text": "Prefers vegetarian food"})
    store.search(("ops", "user-42"), query="what does the user eat?")
    graph = builder.compile(store=store)

Mapping. A namespace's first label is the **bank** (its slug); the remaining labels,
joined with ``/``, are the episode's **thread** and its **subject**: ``("ops", "user-42")``
is bank ``ops``, thread and subject ``user-42``; ``("ops", "user-42", "prefs")`` is thread
``user-42/prefs``. Each item is one episode with source ``langgraph``; its text (the
fields named by ``index``, else the whole value) is embedded and searchable like any
other memory, and its metadata keeps the namespace, the key, the exact JSON value and when
it was first put. So:

- ``put`` retains the new value, then deletes the episode of the value it replaces (an
  identical ``put`` stores nothing: the item's idempotency key is a hash of namespace, key
  and value); ``delete`` deletes the item's episodes. Values pass Memory Defense like any
  retain (redacted, or refused with ``MemoryDefenseBlocked``), and extraction and
  consolidation turn them into facts and beliefs.
- ``search`` with a ``query`` is a MemoryHub recall (semantic, keyword, graph and temporal
  channels, under ``budget_tokens``) restricted to the store's episodes; its score is the
  recall score. Without a query it lists the namespace's items, newest first. ``filter``
  applies to the values (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``, dotted paths).
- An erasure request for subject ``user-42`` erases what was stored under
  ``(bank, "user-42")`` (and nothing under ``(bank, "user-42", "prefs")``: another subject);
  a ``put`` into an erased subject raises ``SubjectErased``.
- ``list_namespaces`` reads the store's episodes of the bank named by a prefix's first
  label, or of every bank the key reaches.

Costs: ``get``, ``put`` and ``delete`` list the namespace's items (one request per 500);
a ``search`` of a namespace prefix without a query, and ``list_namespaces``, list the
bank's store items. ``index=False`` items are still embedded (MemoryHub embeds every
episode) but a query never returns them. TTLs are not supported.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Generator, Iterable
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)

from memoryhub_client import models as m
from memoryhub_client._resources import _bank_path, _model
from memoryhub_client._transport import Call
from memoryhub_client.client import AsyncMemoryHub, MemoryHub
from memoryhub_client.errors import MemoryHubError

SOURCE = "langgraph"
PAGE = 500
MAX_CONTENT_CHARS = 20_000
Steps = Generator[Call, Any, Any]


class SubjectErased(MemoryHubError):
    """The item's subject (its namespace below the bank) was erased: MemoryHub keeps nothing new about it."""

    code = "subject_erased"


def _thread(namespace: tuple[str, ...]) -> str:
    return "/".join(namespace[1:])


def _lookup(value: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    return value


def _field_texts(value: Any, path: str) -> list[str]:
    """The texts at ``path`` (``a.b``, ``a[0].b``, ``a[*].b``; ``$`` is the whole value)."""
    if path == "$":
        return [value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)]
    current = [value]
    for part in path.replace("]", "").split("."):
        name, _, index = part.partition("[")
        nxt = []
        for node in current:
            if not isinstance(node, dict) or name not in node:
                continue
            child = node[name]
            if index == "*" and isinstance(child, list):
                nxt.extend(child)
            elif index.isdigit() and isinstance(child, list) and int(index) < len(child):
                nxt.append(child[int(index)])
            elif not index:
                nxt.append(child)
        current = nxt
    return [node if isinstance(node, str) else json.dumps(node, ensure_ascii=False) for node in current]


def _matches(value: dict, conditions: dict[str, Any] | None) -> bool:
    for path, expected in (conditions or {}).items():
        actual = _lookup(value, path)
        if isinstance(expected, dict) and expected and all(op.startswith("$") for op in expected):
            for op, operand in expected.items():
                if not _compare(actual, op, operand):
                    return False
        elif actual != expected:
            return False
    return True


def _compare(actual: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return actual == operand
    if op == "$ne":
        return actual != operand
    try:
        return {"$gt": actual > operand, "$gte": actual >= operand, "$lt": actual < operand,
                "$lte": actual <= operand}[op]  # fmt: skip
    except TypeError:
        return False
    except KeyError:
        raise ValueError(f"unsupported filter operator {op!r}") from None


def _matches_condition(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path) :]
    return all(want == "*" or want == got for want, got in zip(path, part, strict=True))


class _Row:
    """One store item as MemoryHub keeps it (an episode with source ``langgraph``)."""

    def __init__(self, episode_id: int, recorded_at: datetime, metadata: dict):
        data = metadata.get(SOURCE) or {}
        self.episode_id = episode_id
        self.namespace = tuple(data.get("namespace") or ())
        self.key = data.get("key")
        self.value = data.get("value") if isinstance(data.get("value"), dict) else {}
        self.indexed = data.get("index") is not False
        created = data.get("created_at")
        self.updated_at = recorded_at
        self.created_at = datetime.fromisoformat(created) if isinstance(created, str) else recorded_at

    @property
    def valid(self) -> bool:
        return bool(self.namespace) and isinstance(self.key, str)

    def item(self) -> Item:
        return Item(
            value=self.value, key=self.key, namespace=self.namespace,
            created_at=self.created_at, updated_at=self.updated_at,
        )  # fmt: skip

    def search_item(self, score: float | None = None) -> SearchItem:
        return SearchItem(self.namespace, self.key, self.value, self.created_at, self.updated_at, score=score)


class MemoryHubStore(BaseStore):
    """LangGraph's long-term memory store on MemoryHub banks (see the module's docstring for the mapping).

    ``budget_tokens`` bounds each search's recall; ``index_fields`` are the value fields
    embedded when ``put`` names none (default: the whole value).
    """

    supports_ttl = False

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        hub: MemoryHub | None = None,
        async_hub: AsyncMemoryHub | None = None,
        budget_tokens: int = 4000,
        index_fields: list[str] | None = None,
    ):
        self._settings = (base_url, api_key)
        self._hub = hub
        self._async_hub = async_hub
        self.budget_tokens = budget_tokens
        self.index_fields = index_fields

    # --- running the steps -----------------------------------------------------------
    @property
    def hub(self) -> MemoryHub:
        if self._hub is None:
            self._hub = MemoryHub(self._settings[0], api_key=self._settings[1])
        return self._hub

    @property
    def async_hub(self) -> AsyncMemoryHub:
        if self._async_hub is None:
            self._async_hub = AsyncMemoryHub(self._settings[0], api_key=self._settings[1])
        return self._async_hub

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results = []
        for op in ops:
            steps = self._op(op)
            try:
                call = next(steps)
                while True:
                    call = steps.send(self.hub._transport.execute(call))
            except StopIteration as done:
                results.append(done.value)
        return results

    # Sync/async twin of ``batch``: same code but for ``await`` (as in httpx, openai-python); kept apart on purpose.
    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        results = []
        for op in ops:
            steps = self._op(op)
            try:
                call = next(steps)
                while True:
                    call = steps.send(await self.async_hub._transport.execute(call))
            except StopIteration as done:
                results.append(done.value)
        return results

    # --- the operations, as steps that yield API calls ----------------------------------
    def _op(self, op: Op) -> Steps:
        validate_op_namespace(op)
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            return self._delete(op) if op.value is None else self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValueError(f"unknown operation {type(op).__name__}")

    def _rows(self, bank: str, *, subject: str | None = None) -> Steps:
        """Every store item of ``bank`` (of one subject when given), page after page."""
        rows, offset = [], 0
        while True:
            params = {"source": SOURCE, "subject": subject or None, "limit": PAGE, "offset": offset}
            call = Call("GET", _bank_path(bank, "episodes/"), params=params, parse=_model(m.PaginatedEpisodeList))
            page = yield call
            rows.extend(_Row(e.id, e.recorded_at, e.metadata or {}) for e in page.results)
            offset += len(page.results)
            if not page.next or not page.results:
                return [row for row in rows if row.valid]

    def _item_rows(self, namespace: tuple[str, ...], key: str) -> Steps:
        rows = yield from self._rows(namespace[0], subject=_thread(namespace))
        found = [row for row in rows if row.namespace == namespace and row.key == key]
        return sorted(found, key=lambda row: (row.updated_at, row.episode_id), reverse=True)

    def _get(self, op: GetOp) -> Steps:
        if not op.namespace:
            return None
        found = yield from self._item_rows(tuple(op.namespace), op.key)
        return found[0].item() if found else None

    def _content(self, value: dict, key: str, index: Any) -> str:
        fields = index if isinstance(index, list) else self.index_fields
        if fields:
            texts = [text for path in fields for text in _field_texts(value, path)]
        else:
            texts = [json.dumps(value, ensure_ascii=False, sort_keys=True)]
        content = "\n".join(text for text in texts if text.strip()) or key
        return content[:MAX_CONTENT_CHARS]

    def _put(self, op: PutOp) -> Steps:
        namespace, value = tuple(op.namespace), dict(op.value)
        existing = yield from self._item_rows(namespace, op.key)
        now = datetime.now(UTC)
        created_at = existing[-1].created_at if existing else now
        identity = json.dumps([list(namespace), op.key, value], sort_keys=True, ensure_ascii=False, default=str)
        item = {
            "content": self._content(value, op.key, op.index),
            "source": SOURCE,
            "subject": _thread(namespace),
            "thread": _thread(namespace),
            "provenance": "agent",
            "occurred_at": now,
            "idempotency_key": "langgraph:" + hashlib.sha256(identity.encode()).hexdigest(),
            "metadata": {
                SOURCE: {
                    "namespace": list(namespace),
                    "key": op.key,
                    "value": value,
                    "created_at": created_at.isoformat(),
                    "index": False if op.index is False else (op.index or self.index_fields),
                }
            },
        }
        answer = yield self.hub._core.retain_call(namespace[0], [item])
        outcome = answer.items[0]
        if outcome.status == "suppressed":
            raise SubjectErased(f"subject {_thread(namespace)!r} of bank {namespace[0]!r} was erased")
        for row in existing:
            if row.episode_id != outcome.episode_id:
                yield Call("DELETE", _bank_path(namespace[0], f"episodes/{row.episode_id}"))
        return None

    def _delete(self, op: PutOp) -> Steps:
        for row in (yield from self._item_rows(tuple(op.namespace), op.key)):
            yield Call("DELETE", _bank_path(op.namespace[0], f"episodes/{row.episode_id}"))
        return None

    def _banks(self, first_label: str | None) -> Steps:
        if first_label is not None and first_label != "*":
            return [first_label]
        slugs, offset = [], 0
        while True:
            page = yield Call("GET", "/api/v1/banks/", params={"limit": PAGE, "offset": offset},
                              parse=_model(m.PaginatedBankList))  # fmt: skip
            slugs.extend(bank.slug for bank in page.results)
            offset += len(page.results)
            if not page.next or not page.results:
                return slugs

    def _search(self, op: SearchOp) -> Steps:
        prefix = tuple(op.namespace_prefix)
        under = lambda row: row.namespace[: len(prefix)] == prefix  # noqa: E731
        banks = yield from self._banks(prefix[0] if prefix else None)
        if not op.query:
            rows = []
            for bank in banks:
                rows.extend(row for row in (yield from self._rows(bank)) if under(row))
            rows = [row for row in rows if _matches(row.value, op.filter)]
            rows.sort(key=lambda row: (row.updated_at, row.episode_id), reverse=True)
            return [row.search_item() for row in rows[op.offset : op.offset + op.limit]]
        scored: list[tuple[float, _Row]] = []
        for bank in banks:
            filters: dict[str, list[str]] = {"source": [SOURCE]}
            if len(prefix) >= 2:
                # Recall only this namespace and those below it, so other namespaces cannot crowd it out.
                subjects = sorted({_thread(row.namespace) for row in (yield from self._rows(bank)) if under(row)})
                if not subjects:
                    continue
                if len(subjects) <= 50:
                    filters["subject"] = subjects
            body = {"query": op.query, "budget_tokens": self.budget_tokens, "filters": filters, "kinds": ["episode"]}
            answer = yield Call("POST", _bank_path(bank, "recall"), json=body, parse=_model(m.Recall))
            seen = set()
            for hit in answer.items:
                if not hit.provenance.episode_ids:
                    continue
                row = _Row(hit.provenance.episode_ids[0], hit.provenance.recorded_at, hit.provenance.metadata or {})
                if row.valid and row.indexed and under(row) and row.episode_id not in seen:
                    seen.add(row.episode_id)
                    if _matches(row.value, op.filter):
                        scored.append((hit.score, row))
        scored.sort(key=lambda pair: pair[0], reverse=True)
        return [row.search_item(score) for score, row in scored[op.offset : op.offset + op.limit]]

    def _list_namespaces(self, op: ListNamespacesOp) -> Steps:
        conditions = tuple(op.match_conditions or ())
        first = next((c.path[0] for c in conditions if c.match_type == "prefix" and c.path), None)
        found: set[tuple[str, ...]] = set()
        for bank in (yield from self._banks(first)):
            for row in (yield from self._rows(bank)):
                if all(_matches_condition(row.namespace, condition) for condition in conditions):
                    found.add(row.namespace[: op.max_depth] if op.max_depth is not None else row.namespace)
        return sorted(found)[op.offset : op.offset + op.limit]


__all__ = ["MemoryHubStore", "SubjectErased"]
