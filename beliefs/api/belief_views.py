"""Fact, belief, mental-model, reflect and background routes under ``banks/{bank_slug}/``."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response

from audit.services import actor_of
from banks.policy import bank_policy
from banks.scoping import BankScopedAPIView
from beliefs.api.belief_serializers import (
    BackgroundStatusOutputSerializer,
    BeliefAsOfOutputSerializer,
    BeliefDetailOutputSerializer,
    BeliefOutputSerializer,
    DefenseRescanOutputSerializer,
    FactOutputSerializer,
    MentalModelInputSerializer,
    MentalModelOutputSerializer,
    ReflectInputSerializer,
    ReflectOutputSerializer,
)
from beliefs.filtersets import BeliefFilterSet, FactFilterSet
from beliefs.selectors.backlog import backlog_summary
from beliefs.selectors.beliefs import (
    belief_get,
    belief_list,
    beliefs_as_of,
    fact_get,
    fact_list,
    mental_model_get,
    mental_model_list,
)
from beliefs.selectors.defense import defense_rescan_list
from beliefs.services.defense.rescan import defense_rescan_start
from beliefs.services.extract import bank_background_queue
from beliefs.services.mental_models import mental_model_create, mental_model_delete, mental_model_refresh
from beliefs.services.reflect import reflect
from memoryhub.exceptions import BeliefNotFound, FactNotFound, MentalModelNotFound
from memoryhub.pagination import MemoryHubPagination, paginate, paginated_schema
from memoryhub.serializers import parse_datetime_param

VALID_AT = OpenApiParameter("valid_at", str, description="Only facts true at this time (ISO 8601).")
KNOWN_AT = OpenApiParameter("known_at", str, description="As the bank knew it at this time (ISO 8601).")
AS_OF = OpenApiParameter("as_of", str, description="What the bank believed at this time: each belief's version then.")


class FactListApi(BankScopedAPIView):
    serializer_class = FactOutputSerializer
    filterset_class = FactFilterSet
    pagination_class = MemoryHubPagination

    def scoped_get_queryset(self):
        params = self.request.query_params
        return fact_list(
            bank=self.bank,
            valid_at=parse_datetime_param(params, "valid_at"),
            known_at=parse_datetime_param(params, "known_at"),
        )

    @extend_schema(parameters=[VALID_AT, KNOWN_AT], responses=paginated_schema(FactOutputSerializer))
    def get(self, request, bank_slug: str):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(FactOutputSerializer(page, many=True).data)


class FactDetailApi(BankScopedAPIView):
    serializer_class = FactOutputSerializer

    def scoped_get_queryset(self):
        return fact_list(bank=self.bank)

    def get(self, request, bank_slug: str, fact_id: int):
        fact = fact_get(bank=self.bank, fact_id=fact_id)
        if fact is None:
            raise FactNotFound()
        return Response(FactOutputSerializer(fact).data)


class BeliefListApi(BankScopedAPIView):
    serializer_class = BeliefOutputSerializer
    filterset_class = BeliefFilterSet
    pagination_class = MemoryHubPagination

    def scoped_get_queryset(self):
        return belief_list(bank=self.bank)

    @extend_schema(parameters=[AS_OF], responses=paginated_schema(BeliefOutputSerializer))
    def get(self, request, bank_slug: str):
        as_of = parse_datetime_param(request.query_params, "as_of")
        if as_of is not None:
            rows = [
                {
                    "id": belief.pk,
                    "statement": version.new_statement,
                    "status": version.new_status,
                    "confidence": version.new_confidence,
                    "proof_count": version.new_proof_count,
                    "version": version.version,
                    "effective_at": version.effective_at,
                }
                for belief, version in beliefs_as_of(bank=self.bank, at=as_of)
            ]
            return paginate(request, self, rows, BeliefAsOfOutputSerializer)
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(BeliefOutputSerializer(page, many=True).data)


class BeliefDetailApi(BankScopedAPIView):
    serializer_class = BeliefDetailOutputSerializer

    def scoped_get_queryset(self):
        return belief_list(bank=self.bank)

    def get(self, request, bank_slug: str, belief_id: int):
        belief = belief_get(bank=self.bank, belief_id=belief_id)
        if belief is None:
            raise BeliefNotFound()
        return Response(BeliefDetailOutputSerializer(belief).data)


class MentalModelListApi(BankScopedAPIView):
    serializer_class = MentalModelOutputSerializer
    pagination_class = MemoryHubPagination

    def scoped_get_queryset(self):
        return mental_model_list(bank=self.bank)

    @extend_schema(responses=paginated_schema(MentalModelOutputSerializer))
    def get(self, request, bank_slug: str):
        return paginate(request, self, self.get_queryset(), MentalModelOutputSerializer)

    @extend_schema(request=MentalModelInputSerializer, responses={201: MentalModelOutputSerializer})
    def post(self, request, bank_slug: str):
        data = MentalModelInputSerializer.parse(request.data)
        model = mental_model_create(bank=self.bank, actor=actor_of(request), **data)
        return Response(MentalModelOutputSerializer(model).data, status=status.HTTP_201_CREATED)


class MentalModelDetailApi(BankScopedAPIView):
    serializer_class = MentalModelOutputSerializer

    def scoped_get_queryset(self):
        return mental_model_list(bank=self.bank)

    def get(self, request, bank_slug: str, name: str):
        model = mental_model_get(bank=self.bank, name=name)
        if model is None:
            raise MentalModelNotFound()
        return Response(MentalModelOutputSerializer(model).data)

    @extend_schema(responses={204: None})
    def delete(self, request, bank_slug: str, name: str):
        mental_model_delete(bank=self.bank, name=name, actor=actor_of(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MentalModelRefreshApi(BankScopedAPIView):
    serializer_class = MentalModelOutputSerializer

    def scoped_get_queryset(self):
        return mental_model_list(bank=self.bank)

    @extend_schema(request=None, responses=MentalModelOutputSerializer)
    def post(self, request, bank_slug: str, name: str):
        return Response(MentalModelOutputSerializer(mental_model_refresh(bank=self.bank, name=name)).data)


class ReflectApi(BankScopedAPIView):
    method_access = {"POST": "read"}

    def scoped_get_queryset(self):
        return belief_list(bank=self.bank)

    @extend_schema(request=ReflectInputSerializer, responses=ReflectOutputSerializer)
    def post(self, request, bank_slug: str):
        data = ReflectInputSerializer.parse(request.data)
        result = reflect(bank=self.bank, question=data["question"], budget_tokens=data["budget_tokens"])
        return Response(ReflectOutputSerializer(result).data)


class BackgroundApi(BankScopedAPIView):
    """Extraction and consolidation status of a bank; POST queues a run now."""

    serializer_class = BackgroundStatusOutputSerializer

    def scoped_get_queryset(self):
        return belief_list(bank=self.bank)

    def _status(self) -> dict:
        backlog = backlog_summary(bank=self.bank)
        return {
            "paused": bank_policy(self.bank).background_paused,
            "unextracted_episodes": backlog.unextracted_episodes,
            "unconsolidated_facts": backlog.unconsolidated_facts,
            "lag_seconds": round(backlog.lag_seconds, 3),
            "facts": fact_list(bank=self.bank).count(),
            "beliefs": belief_list(bank=self.bank).count(),
        }

    def get(self, request, bank_slug: str):
        return Response(BackgroundStatusOutputSerializer(self._status()).data)

    @extend_schema(request=None, responses={202: BackgroundStatusOutputSerializer})
    def post(self, request, bank_slug: str):
        payload = self._status()
        payload["queued"] = not payload["paused"]
        if payload["queued"]:
            bank_background_queue(bank=self.bank)
        return Response(BackgroundStatusOutputSerializer(payload).data, status=status.HTTP_202_ACCEPTED)


class DefenseRescanApi(BankScopedAPIView):
    """Progress of a Memory Defense re-scan (started by tightening the bank's policy, or here)."""

    method_access = {"GET": "admin", "POST": "admin"}
    serializer_class = DefenseRescanOutputSerializer
    pagination_class = MemoryHubPagination

    def scoped_get_queryset(self):
        return defense_rescan_list(bank=self.bank)

    @extend_schema(responses=paginated_schema(DefenseRescanOutputSerializer))
    def get(self, request, bank_slug: str):
        return paginate(request, self, self.get_queryset(), DefenseRescanOutputSerializer)

    @extend_schema(request=None, responses={202: DefenseRescanOutputSerializer})
    def post(self, request, bank_slug: str):
        rescan = defense_rescan_start(bank=self.bank, actor=actor_of(request))
        return Response(DefenseRescanOutputSerializer(rescan).data, status=status.HTTP_202_ACCEPTED)
