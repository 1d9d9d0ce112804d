"""Filter types shared by every app's FilterSets."""

from __future__ import annotations

import django_filters
from django.core.exceptions import ValidationError

from memoryhub.serializers import EARLIEST_TIME, LATEST_TIME


def _within_time_range(value) -> None:
    if value is not None and not EARLIEST_TIME <= value < LATEST_TIME:
        raise ValidationError(
            f"Expected a time between {EARLIEST_TIME.year} and {LATEST_TIME.year}.", code="out_of_range"
        )


class TimeFilter(django_filters.IsoDateTimeFilter):
    """An ISO 8601 time between the years 1000 and 9000, like every time the API accepts in a body."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("validators", [_within_time_range])
        super().__init__(*args, **kwargs)
