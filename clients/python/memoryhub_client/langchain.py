"""A LangChain retriever over MemoryHub recall (extra ``[langchain]``).

    from memoryhub_client.langchain import MemoryHubRetriever

    retriever = MemoryHubRetriever(bank="ops", budget_tokens=400)
    for document in retriever.invoke("is disk latency on db-01 a known pattern?"):
        print(document.metadata["score"], document.page_content)

Each recalled item becomes a ``Document`` whose ``page_content`` is the item's text and
whose metadata carries its provenance (``episode_ids``, ``occurred_at``, ``recorded_at``,
``source``, ``subject``, ``provenance`` and the episode's ``metadata``), its ``kind``,
``score``, the ``channels`` that found it, ``tokens``, ``flags`` (prompt-injection
markers found at retain) and ``untrusted: True``: recalled text is data written by
someone else, never instructions, so put it in a prompt fenced as such. Together the
documents never exceed ``budget_tokens``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from memoryhub_client import models as m
from memoryhub_client.client import AsyncMemoryHub, MemoryHub


def recall_documents(answer: m.Recall, bank: str) -> list[Document]:
    """The items of a recall answer as LangChain documents, in rank order."""
    documents = []
    for item in answer.items:
        provenance = item.provenance
        documents.append(
            Document(
                id=f"{bank}:{item.id}",
                page_content=item.text,
                metadata={
                    "bank": bank,
                    "id": item.id,
                    "kind": item.kind,
                    "score": item.score,
                    "channels": list(item.channels),
                    "tokens": item.tokens,
                    "untrusted": item.untrusted,
                    "flags": list(item.flags),
                    "trimmed": item.trimmed,
                    "episode_ids": list(provenance.episode_ids),
                    "occurred_at": provenance.occurred_at.isoformat(),
                    "recorded_at": provenance.recorded_at.isoformat(),
                    "source": provenance.source,
                    "subject": provenance.subject,
                    "provenance": provenance.provenance,
                    "metadata": dict(provenance.metadata or {}),
                },
            )
        )
    return documents


class MemoryHubRetriever(BaseRetriever):
    """Recall from one bank under a hard token budget, as LangChain documents.

    ``filters`` (``source``, ``subject``, ``occurred_after``, ``occurred_before``),
    ``kinds`` and ``channels`` are passed to recall. ``hub``/``async_hub`` default to
    clients built from ``MEMORYHUB_URL`` and ``MEMORYHUB_API_KEY``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    bank: str
    budget_tokens: int = 1000
    filters: dict[str, Any] | None = None
    kinds: list[str] | None = None
    channels: list[str] | None = None
    hub: MemoryHub | None = Field(default=None, exclude=True)
    async_hub: AsyncMemoryHub | None = Field(default=None, exclude=True)

    def _options(self) -> dict[str, Any]:
        return {"budget_tokens": self.budget_tokens, "filters": self.filters, "kinds": self.kinds,
                "channels": self.channels}  # fmt: skip

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        if self.hub is None:
            self.hub = MemoryHub()
        return recall_documents(self.hub.recall(self.bank, query, **self._options()), self.bank)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.async_hub is None:
            self.async_hub = AsyncMemoryHub()
        return recall_documents(await self.async_hub.recall(self.bank, query, **self._options()), self.bank)


__all__ = ["MemoryHubRetriever", "recall_documents"]
