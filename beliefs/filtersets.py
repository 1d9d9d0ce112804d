"""Filters for the episode, fact and belief lists."""

import django_filters

from beliefs.models import Belief, Episode, Extractor, Fact, Provenance


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


class FactFilterSet(django_filters.FilterSet):
    subject = django_filters.CharFilter(lookup_expr="icontains")
    predicate = django_filters.CharFilter()
    object = django_filters.CharFilter(lookup_expr="icontains")
    episode = django_filters.NumberFilter(field_name="episode_id")
    extractor = django_filters.ChoiceFilter(choices=Extractor.choices)
    current = django_filters.BooleanFilter(
        field_name="invalid_at", lookup_expr="isnull", label="Only facts no later fact has invalidated."
    )

    class Meta:
        model = Fact
        fields = ["subject", "predicate", "object", "episode", "extractor", "current"]


class BeliefFilterSet(django_filters.FilterSet):
    status = django_filters.MultipleChoiceFilter(choices=Belief.Status.choices)
    subject = django_filters.CharFilter(lookup_expr="icontains")
    predicate = django_filters.CharFilter()
    object = django_filters.CharFilter(lookup_expr="icontains")
    min_proof_count = django_filters.NumberFilter(field_name="proof_count", lookup_expr="gte")
    min_confidence = django_filters.NumberFilter(field_name="confidence", lookup_expr="gte")

    class Meta:
        model = Belief
        fields = ["status", "subject", "predicate", "object"]
