"""Filters for the episode, fact and belief lists."""

import django_filters

from beliefs.models import Belief, Episode, Extractor, Fact, Provenance
from memoryhub.filters import TimeFilter


class EpisodeFilterSet(django_filters.FilterSet):
    source = django_filters.CharFilter()
    subject = django_filters.CharFilter()
    provenance = django_filters.ChoiceFilter(choices=Provenance.choices)
    occurred_after = TimeFilter(field_name="occurred_at", lookup_expr="gte")
    occurred_before = TimeFilter(field_name="occurred_at", lookup_expr="lte")
    recorded_after = TimeFilter(field_name="recorded_at", lookup_expr="gte")
    recorded_before = TimeFilter(field_name="recorded_at", lookup_expr="lte")

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


class BeliefBrowserFilterSet(BeliefFilterSet):
    """The dashboard's belief browser: the API's filters plus text search, ranges, staleness and sorting."""

    q = django_filters.CharFilter(method="search", label="Search statements")
    max_confidence = django_filters.NumberFilter(field_name="confidence", lookup_expr="lte")
    max_proof_count = django_filters.NumberFilter(field_name="proof_count", lookup_expr="lte")
    stale_days = django_filters.NumberFilter(method="not_confirmed_for", label="Not confirmed for (days)")
    sort = django_filters.OrderingFilter(
        fields=(
            ("confidence", "confidence"),
            ("proof_count", "proofs"),
            ("last_confirmed_at", "confirmed"),
            ("subject", "subject"),
            ("updated_at", "updated"),
        )
    )

    class Meta(BeliefFilterSet.Meta):
        fields = ["status", "subject", "predicate", "object"]

    def search(self, queryset, name, value):
        from django.contrib.postgres.search import SearchQuery

        return queryset.filter(search_vector=SearchQuery(value, search_type="websearch", config="english"))

    def not_confirmed_for(self, queryset, name, value):
        from datetime import timedelta

        from django.utils import timezone

        return queryset.filter(last_confirmed_at__lt=timezone.now() - timedelta(days=float(value)))


class EpisodeBrowserFilterSet(EpisodeFilterSet):
    """The dashboard's episode explorer: the API's filters plus thread, text search and Memory Defense flags."""

    thread = django_filters.CharFilter()
    q = django_filters.CharFilter(method="search", label="Search text")
    flagged = django_filters.BooleanFilter(method="only_flagged", label="Injection markers")

    class Meta(EpisodeFilterSet.Meta):
        fields = ["source", "subject", "provenance", "thread"]

    def search(self, queryset, name, value):
        from django.contrib.postgres.search import SearchQuery

        return queryset.filter(search_vector=SearchQuery(value, search_type="websearch", config="english"))

    def only_flagged(self, queryset, name, value):
        if value is None:
            return queryset
        return queryset.exclude(injection_flags=[]) if value else queryset.filter(injection_flags=[])
