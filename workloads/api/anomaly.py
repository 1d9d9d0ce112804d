"""Anomaly routes under ``banks/{bank_slug}/anomaly/``: events, triage, and the decision (suppression) log."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from audit.services import actor_of
from banks.scoping import BankScopedAPIView
from beliefs.extractors.structured import event_problems
from memoryhub.exceptions import TriageDecisionNotFound
from memoryhub.pagination import MemoryHubPagination
from memoryhub.serializers import StrictInputSerializer
from workloads.anomaly import ANALYST_EVENTS, EVENT_TEMPLATES, anomaly_event_record, triage
from workloads.anomaly.selectors import triage_decision_get, triage_decision_list
from workloads.filtersets import TriageDecisionFilterSet
from workloads.models import TriageDecision


class AnomalyEventInputSerializer(StrictInputSerializer):
    type = serializers.ChoiceField(choices=sorted(EVENT_TEMPLATES))
    occurred_at = serializers.DateTimeField()
    signature = serializers.CharField(max_length=200, required=False)
    host = serializers.CharField(max_length=200, required=False)
    service = serializers.CharField(max_length=200, required=False)
    metric = serializers.CharField(max_length=200, required=False)
    value = serializers.FloatField(required=False)
    reason = serializers.CharField(
        max_length=1000, required=False, help_text="The analyst's own words; evidence quotes are cut from them."
    )
    cause = serializers.CharField(max_length=500, required=False)
    step = serializers.CharField(max_length=200, required=False)
    produced_signal = serializers.BooleanField(required=False)
    analyst = serializers.CharField(max_length=200, required=False)

    def validate(self, attrs):
        problems = event_problems({**attrs, "event": attrs["type"], "occurred_at": None})
        if attrs["type"] in {"alert", "cause", *ANALYST_EVENTS} and not (attrs.get("host") or attrs.get("service")):
            problems.append("needs 'host' or 'service'")
        if attrs["type"] in ANALYST_EVENTS and not (attrs.get("reason") or "").strip():
            problems.append(f"a {attrs['type']} needs the analyst's 'reason' (it is the evidence)")
        if problems:
            raise serializers.ValidationError({"type": problems}, code="invalid_event")
        return attrs


class TriageInputSerializer(StrictInputSerializer):
    signature = serializers.CharField(max_length=200)
    host = serializers.CharField(max_length=200, required=False)
    service = serializers.CharField(max_length=200, required=False)
    value = serializers.FloatField(required=False)
    now = serializers.DateTimeField(required=False, help_text="Decide as of this time (replays); default: now.")
    budget_tokens = serializers.IntegerField(required=False, default=400, min_value=32, max_value=16000)

    def validate(self, attrs):
        if not (attrs.get("host") or attrs.get("service")):
            raise serializers.ValidationError({"host": ["Give 'host' or 'service'."]}, code="required")
        return attrs


class TriageDecisionOutputSerializer(serializers.ModelSerializer):
    belief_id = serializers.IntegerField(allow_null=True)

    class Meta:
        model = TriageDecision
        fields = [
            "id", "signature", "target", "host", "service", "value", "decided_at", "decision",
            "belief_id", "belief_status", "proof_count", "confidence", "reasons", "citations", "created_at",
        ]  # fmt: skip


class _AnomalyBase(BankScopedAPIView):
    def scoped_get_queryset(self):
        return triage_decision_list(bank=self.bank)


class AnomalyEventApi(_AnomalyBase):
    """Alerts and other machine events need ``write``; analyst verdicts need ``review`` (a person's gate)."""

    def required_access(self):
        data = self.request.data
        if isinstance(data, dict) and data.get("type") in ANALYST_EVENTS:
            return "review"
        return super().required_access()

    @extend_schema(request=AnomalyEventInputSerializer, responses={201: dict})
    def post(self, request, bank_slug: str):
        data = AnomalyEventInputSerializer.parse(request.data)
        occurred_at = data.pop("occurred_at")
        episode_id = anomaly_event_record(bank=self.bank, event=data, occurred_at=occurred_at, actor=actor_of(request))
        return Response({"episode_id": episode_id, "type": data["type"]}, status=status.HTTP_201_CREATED)


class TriageApi(_AnomalyBase):
    @extend_schema(request=TriageInputSerializer, responses=dict)
    def post(self, request, bank_slug: str):
        data = TriageInputSerializer.parse(request.data)
        result = triage(
            bank=self.bank,
            signature=data["signature"],
            host=data.get("host"),
            service=data.get("service"),
            value=data.get("value"),
            now=data.get("now") or timezone.now(),
            budget_tokens=data["budget_tokens"],
            actor=actor_of(request),
        )
        return Response(result.__dict__)


class TriageDecisionListApi(_AnomalyBase):
    serializer_class = TriageDecisionOutputSerializer
    pagination_class = MemoryHubPagination
    filterset_class = TriageDecisionFilterSet

    def scoped_get_queryset(self):
        return triage_decision_list(bank=self.bank)

    @extend_schema(responses=TriageDecisionOutputSerializer(many=True))
    def get(self, request, bank_slug: str):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(TriageDecisionOutputSerializer(page, many=True).data)


class TriageDecisionDetailApi(_AnomalyBase):
    serializer_class = TriageDecisionOutputSerializer

    @extend_schema(responses=TriageDecisionOutputSerializer)
    def get(self, request, bank_slug: str, decision_id: int):
        record = triage_decision_get(bank=self.bank, decision_id=decision_id)
        if record is None:
            raise TriageDecisionNotFound()
        return Response(TriageDecisionOutputSerializer(record).data)
