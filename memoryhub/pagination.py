"""Limit/offset pagination for every list route."""

from __future__ import annotations

from rest_framework.pagination import LimitOffsetPagination


class MemoryHubPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 500


def paginate(request, view, queryset, serializer_class):
    """One page of ``queryset`` rendered with ``serializer_class`` (``?limit=&offset=``)."""
    paginator = MemoryHubPagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)


def paginated_schema(serializer_class):
    """The OpenAPI response of a list route: a limit/offset page of ``serializer_class`` rows."""
    from drf_spectacular.utils import inline_serializer
    from rest_framework import serializers

    base = serializer_class.__name__.removesuffix("Serializer").removesuffix("Output")
    return inline_serializer(
        name=f"Paginated{base}List",
        fields={
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": serializer_class(many=True),
        },
    )
