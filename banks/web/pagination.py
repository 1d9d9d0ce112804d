"""Page-number pagination for dashboard lists (the API paginates with limit/offset)."""

from __future__ import annotations

from django.core.paginator import Paginator

PAGE_SIZE = 50


def paginate(request, queryset, per_page: int = PAGE_SIZE):
    """The requested page of ``queryset`` (bad or out-of-range numbers give the nearest page)."""
    return Paginator(queryset, per_page).get_page(request.GET.get("page"))
