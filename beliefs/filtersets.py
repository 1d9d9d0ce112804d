"""Filters for the episode list."""

import django_filters

from beliefs.models import Episode, Provenance


class EpisodeFilterSet(django_filters.FilterSet):
    source = django_filters.CharFilter()
    subject = django_filters.CharFilter()
    provenance = django_filters.ChoiceFilter(choices=Provenance.choices)
    occurred_after = django_filters.IsoDateTimeFilter(field_name="occurred_at", lookup_expr="gte")
    occurred_before = django_filters.IsoDateTimeFilter(field_name="occurred_at", lookup_expr="lte")
    recorded_after = django_filters.IsoDateTimeFilter(field_name="recorded_at", lookup_expr="gte")
    recorded_before = django_filters.IsoDateTimeFilter(field_name="recorded_at", lookup_expr="lte")

    class Meta:
        model = Episode
        fields = ["source", "subject", "provenance"]
