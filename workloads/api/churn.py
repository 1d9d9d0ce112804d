"""Churn routes under ``banks/{bank_slug}/churn/``: plays, interventions, outcomes, links, score, recommend."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response

from audit.services import actor_of
from banks.scoping import BankScopedAPIView
from memoryhub.exceptions import InterventionNotFound
from memoryhub.pagination import MemoryHubPagination
from memoryhub.serializers import parse_datetime_param
from workloads.api.serializers import (
    InterventionInputSerializer,
    LinkInputSerializer,
    NowInputSerializer,
    OutcomeInputSerializer,
    OutcomeOutputSerializer,
    PlayInputSerializer,
    PlayOutputSerializer,
    RecommendInputSerializer,
    intervention_representation,
)
from workloads.churn import (
    account_link,
    intervention_record,
    interventions_score,
    outcome_record,
    play_delete,
    play_get,
    play_list,
    play_upsert,
    recommend,
)
from workloads.churn.selectors import intervention_get, intervention_list, intervention_states, outcome_list
from workloads.filtersets import InterventionFilterSet, OutcomeFilterSet

NOW = OpenApiParameter("now", str, description="States as known at this time (ISO 8601); default: now.")


class _ChurnBase(BankScopedAPIView):
    def scoped_get_queryset(self):
        return intervention_list(bank=self.bank)


class PlayListApi(_ChurnBase):
    serializer_class = PlayOutputSerializer
    pagination_class = MemoryHubPagination

    @extend_schema(responses=PlayOutputSerializer(many=True))
    def get(self, request, bank_slug: str):
        page = self.paginate_queryset(play_list(bank=self.bank))
        return self.get_paginated_response(PlayOutputSerializer(page, many=True).data)

    @extend_schema(request=PlayInputSerializer, responses={201: PlayOutputSerializer, 200: PlayOutputSerializer})
    def post(self, request, bank_slug: str):
        play, created = play_upsert(bank=self.bank, actor=actor_of(request), **PlayInputSerializer.parse(request.data))
        return Response(PlayOutputSerializer(play).data, status=status.HTTP_201_CREATED if created else 200)


class PlayDetailApi(_ChurnBase):
    serializer_class = PlayOutputSerializer

    @extend_schema(responses=PlayOutputSerializer)
    def get(self, request, bank_slug: str, name: str):
        return Response(PlayOutputSerializer(play_get(bank=self.bank, name=name)).data)

    @extend_schema(responses={204: None})
    def delete(self, request, bank_slug: str, name: str):
        play_delete(bank=self.bank, name=name, actor=actor_of(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class InterventionApi(_ChurnBase):
    pagination_class = MemoryHubPagination

    filterset_class = InterventionFilterSet

    def scoped_get_queryset(self):
        return intervention_list(bank=self.bank)

    @extend_schema(parameters=[NOW], responses=dict)
    def get(self, request, bank_slug: str):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        now = parse_datetime_param(request.query_params, "now") or timezone.now()
        states = intervention_states(bank=self.bank, interventions=page, now=now)
        return self.get_paginated_response([intervention_representation(i, *states[i.pk]) for i in page])

    @extend_schema(request=InterventionInputSerializer, responses={201: dict, 200: dict})
    def post(self, request, bank_slug: str):
        data = InterventionInputSerializer.parse(request.data)
        intervention, created = intervention_record(bank=self.bank, actor=actor_of(request), **data)
        state, outcome = intervention_states(bank=self.bank, interventions=[intervention])[intervention.pk]
        body = {"created": created, **intervention_representation(intervention, state, outcome)}
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class InterventionDetailApi(_ChurnBase):
    @extend_schema(parameters=[NOW], responses=dict)
    def get(self, request, bank_slug: str, intervention_id: int):
        intervention = intervention_get(bank=self.bank, intervention_id=intervention_id)
        if intervention is None:
            raise InterventionNotFound("No such intervention in this bank.", extra={"intervention_id": intervention_id})
        now = parse_datetime_param(request.query_params, "now") or timezone.now()
        state, outcome = intervention_states(bank=self.bank, interventions=[intervention], now=now)[intervention.pk]
        return Response(intervention_representation(intervention, state, outcome))


class OutcomeApi(_ChurnBase):
    serializer_class = OutcomeOutputSerializer
    pagination_class = MemoryHubPagination

    filterset_class = OutcomeFilterSet

    def scoped_get_queryset(self):
        return outcome_list(bank=self.bank)

    @extend_schema(responses=OutcomeOutputSerializer(many=True))
    def get(self, request, bank_slug: str):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(OutcomeOutputSerializer(page, many=True).data)

    @extend_schema(request=OutcomeInputSerializer, responses={201: dict, 200: dict})
    def post(self, request, bank_slug: str):
        recorded = outcome_record(bank=self.bank, actor=actor_of(request), **OutcomeInputSerializer.parse(request.data))
        body = {
            **OutcomeOutputSerializer(recorded.outcome).data,
            "created": recorded.created,
            "duplicate": recorded.duplicate,
            "note": recorded.note,
        }
        return Response(body, status=status.HTTP_201_CREATED if recorded.created else status.HTTP_200_OK)


class AccountLinkApi(_ChurnBase):
    @extend_schema(request=LinkInputSerializer, responses={201: dict})
    def post(self, request, bank_slug: str):
        link = account_link(bank=self.bank, **LinkInputSerializer.parse(request.data))
        return Response({"id": link.pk}, status=status.HTTP_201_CREATED)


class ScoreApi(_ChurnBase):
    @extend_schema(request=NowInputSerializer, responses=dict)
    def post(self, request, bank_slug: str):
        data = NowInputSerializer.parse(request.data)
        return Response({"scored": interventions_score(bank=self.bank, now=data.get("now"))})


class RecommendApi(_ChurnBase):
    method_access = {"POST": "read"}

    @extend_schema(request=RecommendInputSerializer, responses=dict)
    def post(self, request, bank_slug: str):
        return Response(recommend(bank=self.bank, **RecommendInputSerializer.parse(request.data)))
