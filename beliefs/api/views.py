"""Memory routes under ``banks/{bank_slug}/``. Each handler: parse → one service/selector → render."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response

from audit.services import actor_of
from banks.scoping import BankScopedAPIView, require_access
from beliefs.api.presenters import recall_payload, retain_payload
from beliefs.api.serializers import (
    EpisodeOutputSerializer,
    RecallInputSerializer,
    RecallOutputSerializer,
    RetainBatchOutputSerializer,
    RetainInputSerializer,
    RetainOutputSerializer,
)
from beliefs.engine.types import RecallFilters
from beliefs.extractors.structured import carries_verdict_event
from beliefs.filtersets import EpisodeFilterSet
from beliefs.selectors.episodes import (
    episode_get,
    episode_list,
    episode_list_with_extraction,
    retain_batch_get,
    retain_batch_list,
)
from beliefs.services.defense.quarantine import episode_release
from beliefs.services.forget.episodes import episode_delete
from beliefs.services.recall import CHANNELS, KINDS, RecallOptions, recall
from beliefs.services.recall.usage import recall_usage_record
from beliefs.services.retain import RetainItem, retain, retain_async_submit
from memoryhub.exceptions import BatchNotFound, EpisodeNotFound
from memoryhub.pagination import MemoryHubPagination, paginated_schema

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="Repeat a request with the same key and body to get the first answer back instead of writing twice.",
)


class RetainApi(BankScopedAPIView):
    def scoped_get_queryset(self):
        return episode_list(bank=self.bank)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if carries_verdict_event(request.data):  # a dismissal, incident or contest is a person's word
            require_access(request, self.bank, "review")

    @extend_schema(
        request=RetainInputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: RetainOutputSerializer, 200: RetainOutputSerializer, 202: RetainBatchOutputSerializer},
    )
    def post(self, request, bank_slug: str):
        data = RetainInputSerializer.parse(request.data)
        items = [RetainItem(**item) for item in data["items"]]
        idempotency_key = request.headers.get("Idempotency-Key") or None
        if data["run_async"]:
            batch = retain_async_submit(
                bank=self.bank, items=items, idempotency_key=idempotency_key, actor=actor_of(request)
            )
            return Response(RetainBatchOutputSerializer(batch).data, status=status.HTTP_202_ACCEPTED)
        result = retain(bank=self.bank, items=items, idempotency_key=idempotency_key, actor=actor_of(request))
        code = status.HTTP_201_CREATED if result.created else status.HTTP_200_OK
        return Response(retain_payload(result), status=code)


class RetainBatchDetailApi(BankScopedAPIView):
    serializer_class = RetainBatchOutputSerializer

    def scoped_get_queryset(self):
        return retain_batch_list(bank=self.bank)

    def get(self, request, bank_slug: str, batch_id: int):
        batch = retain_batch_get(bank=self.bank, batch_id=batch_id)
        if batch is None:
            raise BatchNotFound()
        return Response(RetainBatchOutputSerializer(batch).data)


class RecallApi(BankScopedAPIView):
    method_access = {"POST": "read"}

    def scoped_get_queryset(self):
        return episode_list(bank=self.bank)

    @extend_schema(request=RecallInputSerializer, responses=RecallOutputSerializer)
    def post(self, request, bank_slug: str):
        data = RecallInputSerializer.parse(request.data)
        filters = data.get("filters") or {}
        result = recall(
            bank=self.bank,
            query=data["query"],
            budget_tokens=data["budget_tokens"],
            filters=RecallFilters(
                sources=tuple(filters.get("source", ())),
                subjects=tuple(filters.get("subject", ())),
                occurred_after=filters.get("occurred_after"),
                occurred_before=filters.get("occurred_before"),
            ),
            as_of=data.get("as_of"),
            options=RecallOptions(
                channels=data.get("channels") or CHANNELS,
                kinds=data.get("kinds") or KINDS,
                rerank=data["rerank"],
                now=data.get("now"),
            ),
        )
        recall_usage_record(bank=self.bank, tokens_used=result.tokens_used, budget_tokens=result.budget_tokens)
        return Response(recall_payload(result, explain=data["explain"], render=data["render"]))


class EpisodeListApi(BankScopedAPIView):
    serializer_class = EpisodeOutputSerializer
    filterset_class = EpisodeFilterSet
    pagination_class = MemoryHubPagination

    def scoped_get_queryset(self):
        return episode_list_with_extraction(bank=self.bank)

    @extend_schema(responses=paginated_schema(EpisodeOutputSerializer))
    def get(self, request, bank_slug: str):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(EpisodeOutputSerializer(page, many=True).data)


class EpisodeDetailApi(BankScopedAPIView):
    serializer_class = EpisodeOutputSerializer

    def scoped_get_queryset(self):
        return episode_list(bank=self.bank)

    def get(self, request, bank_slug: str, episode_id: int):
        episode = episode_get(bank=self.bank, episode_id=episode_id)
        if episode is None:
            raise EpisodeNotFound()
        return Response(EpisodeOutputSerializer(episode).data)

    @extend_schema(responses={204: None})
    def delete(self, request, bank_slug: str, episode_id: int):
        episode_delete(bank=self.bank, episode_id=episode_id, actor=actor_of(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class EpisodeReleaseApi(BankScopedAPIView):
    """Release a flagged episode from quarantine (its facts may then support beliefs)."""

    method_access = {"POST": "admin"}
    serializer_class = EpisodeOutputSerializer

    def scoped_get_queryset(self):
        return episode_list(bank=self.bank)

    @extend_schema(request=None, responses=EpisodeOutputSerializer)
    def post(self, request, bank_slug: str, episode_id: int):
        episode = episode_release(bank=self.bank, episode_id=episode_id, actor=actor_of(request))
        return Response(EpisodeOutputSerializer(episode_get(bank=self.bank, episode_id=episode.pk)).data)
