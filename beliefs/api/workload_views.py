"""Anomaly, churn and distillation routes under ``banks/{bank_slug}/``."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from banks.scoping import BankScopedAPIView
from beliefs.api.erasure_views import requester
from beliefs.extractors.structured import event_problems
from beliefs.models import Intervention
from beliefs.workloads.anomaly import EVENT_TEMPLATES, anomaly_event_record, triage
from beliefs.workloads.churn import account_link, intervention_record, interventions_score, outcome_record, recommend
from beliefs.workloads.distill import lessons_submit
from memoryhub.serializers import StrictInputSerializer
from reviews.services.audit import audit_record


class AnomalyEventInputSerializer(StrictInputSerializer):
    type = serializers.ChoiceField(choices=sorted(EVENT_TEMPLATES))
    occurred_at = serializers.DateTimeField()
    signature = serializers.CharField(max_length=200, required=False)
    host = serializers.CharField(max_length=200, required=False)
    service = serializers.CharField(max_length=200, required=False)
    metric = serializers.CharField(max_length=200, required=False)
    value = serializers.FloatField(required=False)
    reason = serializers.CharField(max_length=1000, required=False)
    cause = serializers.CharField(max_length=500, required=False)
    step = serializers.CharField(max_length=200, required=False)
    produced_signal = serializers.BooleanField(required=False)
    analyst = serializers.CharField(max_length=200, required=False)

    def validate(self, attrs):
        problems = event_problems({**attrs, "event": attrs["type"], "occurred_at": None})
        if attrs["type"] in {"alert", "dismissal", "incident", "cause"} and not (
            attrs.get("host") or attrs.get("service")
        ):
            problems.append("needs 'host' or 'service'")
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


class AnomalyEventApi(BankScopedAPIView):
    def scoped_get_queryset(self):
        return self.bank.triage_decisions.all()

    @extend_schema(request=AnomalyEventInputSerializer, responses={201: dict})
    def post(self, request, bank_slug: str):
        data = AnomalyEventInputSerializer.parse(request.data)
        occurred_at = data.pop("occurred_at")
        episode_id = anomaly_event_record(bank=self.bank, event=data, occurred_at=occurred_at)
        audit_record(
            request=request,
            tenant=self.bank.tenant,
            bank=self.bank,
            action="anomaly.event",
            target=f"episode:{episode_id}",
        )
        return Response({"episode_id": episode_id, "type": data["type"]}, status=status.HTTP_201_CREATED)


class TriageApi(BankScopedAPIView):
    def scoped_get_queryset(self):
        return self.bank.triage_decisions.all()

    @extend_schema(request=TriageInputSerializer, responses=dict)
    def post(self, request, bank_slug: str):
        data = TriageInputSerializer.parse(request.data)
        result = triage(
            bank=self.bank,
            signature=data["signature"],
            target=data.get("host") or data.get("service"),
            value=data.get("value"),
            now=data.get("now") or timezone.now(),
            budget_tokens=data["budget_tokens"],
        )
        audit_record(
            request=request,
            tenant=self.bank.tenant,
            bank=self.bank,
            action=f"anomaly.{result.decision}",
            target=f"triage:{result.decision_id}",
        )
        return Response(result.__dict__)


class InterventionInputSerializer(StrictInputSerializer):
    account = serializers.CharField(max_length=200)
    segment = serializers.CharField(max_length=100)
    play = serializers.CharField(max_length=100)
    occurred_at = serializers.DateTimeField()


class OutcomeInputSerializer(StrictInputSerializer):
    account = serializers.CharField(max_length=200)
    result = serializers.ChoiceField(choices=["retained", "churned"])
    occurred_at = serializers.DateTimeField()
    event_id = serializers.CharField(max_length=128)


class LinkInputSerializer(StrictInputSerializer):
    account = serializers.CharField(max_length=200)
    related_account = serializers.CharField(max_length=200)
    relation = serializers.CharField(max_length=64)


class NowInputSerializer(StrictInputSerializer):
    now = serializers.DateTimeField(required=False)


class RecommendInputSerializer(StrictInputSerializer):
    account = serializers.CharField(max_length=200)
    segment = serializers.CharField(max_length=100)
    now = serializers.DateTimeField(required=False)
    plays = serializers.ListField(child=serializers.CharField(max_length=100), required=False, max_length=100)
    limit = serializers.IntegerField(required=False, default=3, min_value=1, max_value=50)


class _ChurnBase(BankScopedAPIView):
    def scoped_get_queryset(self):
        return Intervention.objects.filter(bank=self.bank)


class InterventionApi(_ChurnBase):
    @extend_schema(request=InterventionInputSerializer, responses={201: dict, 200: dict})
    def post(self, request, bank_slug: str):
        data = InterventionInputSerializer.parse(request.data)
        intervention, created = intervention_record(bank=self.bank, **data)
        if created:
            audit_record(
                request=request,
                tenant=self.bank.tenant,
                bank=self.bank,
                action="churn.intervention",
                target=f"intervention:{intervention.pk}",
            )
        body = {
            "id": intervention.pk,
            "created": created,
            "outcome": intervention.outcome,
            "horizon_days": intervention.horizon_days,
        }
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class OutcomeApi(_ChurnBase):
    @extend_schema(request=OutcomeInputSerializer, responses={201: dict, 200: dict})
    def post(self, request, bank_slug: str):
        data = OutcomeInputSerializer.parse(request.data)
        event, created = outcome_record(bank=self.bank, **data)
        if created:
            audit_record(
                request=request,
                tenant=self.bank.tenant,
                bank=self.bank,
                action="churn.outcome",
                target=f"outcome:{event.pk}",
            )
        return Response(
            {"id": event.pk, "created": created}, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


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


class LessonInputSerializer(StrictInputSerializer):
    text = serializers.CharField(max_length=4000)
    evidence_episode_ids = serializers.ListField(child=serializers.IntegerField(), required=False, max_length=100)
    play = serializers.CharField(max_length=100, required=False)
    segment = serializers.CharField(max_length=100, required=False)
    signature = serializers.CharField(max_length=200, required=False)


class LessonsInputSerializer(StrictInputSerializer):
    session = serializers.CharField(max_length=200, required=False, default="")
    lessons = serializers.ListField(child=LessonInputSerializer(), min_length=1, max_length=50)


class LessonsApi(BankScopedAPIView):
    def scoped_get_queryset(self):
        return self.bank.review_items.all()

    @extend_schema(request=LessonsInputSerializer, responses={201: dict})
    def post(self, request, bank_slug: str):
        data = LessonsInputSerializer.parse(request.data)
        items = lessons_submit(
            bank=self.bank, lessons=data["lessons"], session=data["session"], actor=requester(request)
        )
        for item in items:
            audit_record(
                request=request,
                tenant=self.bank.tenant,
                bank=self.bank,
                action="lesson.submitted",
                target=f"review_item:{item.pk}",
            )
        return Response(
            {"review_items": [{"id": i.pk, "status": i.status} for i in items]}, status=status.HTTP_201_CREATED
        )
