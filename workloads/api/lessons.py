"""Gated distillation: ``banks/{bank_slug}/lessons`` (anomaly and churn routes have modules of their own)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from audit.services import actor_of
from banks.scoping import BankScopedAPIView
from memoryhub.serializers import StrictInputSerializer
from reviews.selectors import review_item_list
from workloads.distill import lessons_submit


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
        return review_item_list(bank=self.bank)

    @extend_schema(request=LessonsInputSerializer, responses={201: dict})
    def post(self, request, bank_slug: str):
        data = LessonsInputSerializer.parse(request.data)
        items = lessons_submit(
            bank=self.bank, lessons=data["lessons"], session=data["session"], actor=actor_of(request)
        )
        return Response(
            {"review_items": [{"id": i.pk, "status": i.status} for i in items]}, status=status.HTTP_201_CREATED
        )
