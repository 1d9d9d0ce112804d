"""Review items under ``banks/{bank_slug}/review-items/``: list, filter, read, accept, reject, overturn."""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from audit.services import actor_of
from banks.scoping import BankScopedAPIView
from memoryhub.exceptions import ReviewItemNotFound
from memoryhub.pagination import MemoryHubPagination, paginated_schema
from memoryhub.serializers import StrictInputSerializer
from reviews.models import ReviewItem
from reviews.selectors import review_item_get, review_item_list
from reviews.services.decisions import review_item_decide


class ReviewItemFilterSet(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=ReviewItem.Kind.choices)
    status = django_filters.ChoiceFilter(choices=ReviewItem.Status.choices)

    class Meta:
        model = ReviewItem
        fields = ["kind", "status"]


class ReviewItemOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = ReviewItem
        fields = [
            "id", "kind", "status", "title", "body", "belief", "triage", "payload",
            "comment", "decided_by", "decided_at", "created_at",
        ]  # fmt: skip


class DecisionInputSerializer(StrictInputSerializer):
    comment = serializers.CharField(max_length=4000, required=False, allow_blank=True, default="")


class ReviewItemListApi(BankScopedAPIView):
    serializer_class = ReviewItemOutputSerializer
    filterset_class = ReviewItemFilterSet
    pagination_class = MemoryHubPagination

    def scoped_get_queryset(self):
        return review_item_list(bank=self.bank)

    @extend_schema(responses=paginated_schema(ReviewItemOutputSerializer))
    def get(self, request, bank_slug: str):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(ReviewItemOutputSerializer(page, many=True).data)


class ReviewItemDetailApi(BankScopedAPIView):
    serializer_class = ReviewItemOutputSerializer

    def scoped_get_queryset(self):
        return review_item_list(bank=self.bank)

    def get(self, request, bank_slug: str, item_id: int):
        item = review_item_get(bank=self.bank, item_id=item_id)
        if item is None:
            raise ReviewItemNotFound()
        return Response(ReviewItemOutputSerializer(item).data)


class ReviewItemDecideApi(BankScopedAPIView):
    # People need the reviewer role (banks.review_bank), as in the dashboard; API keys need the review scope,
    # which agent keys do not get by default: a review decision is a person's.
    method_access = {"POST": "review"}
    serializer_class = ReviewItemOutputSerializer

    def scoped_get_queryset(self):
        return review_item_list(bank=self.bank)

    @extend_schema(request=DecisionInputSerializer, responses=ReviewItemOutputSerializer)
    def post(self, request, bank_slug: str, item_id: int, decision: str):
        data = DecisionInputSerializer.parse(request.data)
        item = review_item_decide(
            bank=self.bank, item_id=item_id, decision=decision, comment=data["comment"], actor=actor_of(request)
        )
        return Response(ReviewItemOutputSerializer(item).data)
