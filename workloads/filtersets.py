"""Filters for the workload lists: triage decisions, churn interventions and outcome events."""

import django_filters

from memoryhub.filters import TimeFilter
from workloads.models import Intervention, OutcomeEvent, TriageDecision


class TriageDecisionFilterSet(django_filters.FilterSet):
    decision = django_filters.ChoiceFilter(choices=TriageDecision.Decision.choices)
    signature = django_filters.CharFilter()
    target = django_filters.CharFilter()
    since = TimeFilter(field_name="decided_at", lookup_expr="gte", help_text="Decided at or after this time.")

    class Meta:
        model = TriageDecision
        fields = ["decision", "signature", "target", "since"]


class InterventionFilterSet(django_filters.FilterSet):
    account = django_filters.CharFilter()
    segment = django_filters.CharFilter()
    play = django_filters.CharFilter()

    class Meta:
        model = Intervention
        fields = ["account", "segment", "play"]


class OutcomeFilterSet(django_filters.FilterSet):
    account = django_filters.CharFilter()
    intervention = django_filters.NumberFilter(field_name="intervention_id")
    attribution = django_filters.ChoiceFilter(choices=OutcomeEvent.Attribution.choices)

    class Meta:
        model = OutcomeEvent
        fields = ["account", "intervention", "attribution"]
