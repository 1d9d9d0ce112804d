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
