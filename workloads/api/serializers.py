"""Input and output shapes of the churn routes (they only translate; the rules live in ``workloads.churn``)."""

from __future__ import annotations

from rest_framework import serializers

from memoryhub.serializers import StrictInputSerializer
from workloads.churn.catalogue import HORIZON_MAX_DAYS, HORIZON_MIN_DAYS
from workloads.churn.timeline import State
from workloads.models import ChurnPlay, Intervention, OutcomeEvent


def _horizon(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=HORIZON_MIN_DAYS, max_value=HORIZON_MAX_DAYS, **kwargs)


class PlayInputSerializer(StrictInputSerializer):
    name = serializers.RegexField(r"^[\w.:-]+$", max_length=100, help_text="Letters, digits, _ . : -")
    horizon_days = _horizon(help_text="Days until this play's outcome is judged (30–180).")
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


class PlayOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = ChurnPlay
        fields = ["name", "horizon_days", "description", "created_at", "updated_at"]


class InterventionInputSerializer(StrictInputSerializer):
    account = serializers.CharField(max_length=200)
    segment = serializers.CharField(max_length=100)
    play = serializers.CharField(max_length=100)
    occurred_at = serializers.DateTimeField()
    horizon_days = _horizon(required=False, help_text="Overrides the play's horizon for this offer (30–180).")


class OutcomeInputSerializer(StrictInputSerializer):
    account = serializers.CharField(max_length=200, required=False)
    intervention_id = serializers.IntegerField(required=False, min_value=1)
    result = serializers.ChoiceField(choices=OutcomeEvent.Result.values)
    occurred_at = serializers.DateTimeField(help_text="When it happened (renewal, cancellation effective date).")
    recorded_at = serializers.DateTimeField(required=False, help_text="When it was reported; default: now.")
    event_id = serializers.CharField(max_length=128)

    def validate(self, attrs):
        if not attrs.get("account") and not attrs.get("intervention_id"):
            raise serializers.ValidationError({"account": ["Give 'account' or 'intervention_id'."]}, code="required")
        return attrs


class OutcomeOutputSerializer(serializers.ModelSerializer):
    intervention_id = serializers.IntegerField(allow_null=True)

    class Meta:
        model = OutcomeEvent
        fields = [
            "id", "event_id", "account", "result", "occurred_at", "recorded_at",
            "intervention_id", "attribution", "counts_from", "created_at",
        ]  # fmt: skip


class LinkInputSerializer(StrictInputSerializer):
    account = serializers.CharField(max_length=200)
    related_account = serializers.CharField(max_length=200)
    relation = serializers.CharField(max_length=64)


class NowInputSerializer(StrictInputSerializer):
    now = serializers.DateTimeField(required=False)


class RecommendInputSerializer(StrictInputSerializer):
    account = serializers.CharField(max_length=200)
    segment = serializers.CharField(max_length=100)
    now = serializers.DateTimeField(required=False, help_text="Recommend as of this time (replays); default: now.")
    plays = serializers.ListField(child=serializers.CharField(max_length=100), required=False, max_length=100)
    limit = serializers.IntegerField(required=False, default=3, min_value=1, max_value=50)


def intervention_representation(intervention: Intervention, state: State, outcome: OutcomeEvent | None) -> dict:
    """An intervention with its horizon, window and state at the request's ``now``."""
    return {
        "id": intervention.pk,
        "account": intervention.account,
        "segment": intervention.segment,
        "play": intervention.play,
        "occurred_at": intervention.occurred_at,
        "horizon_days": intervention.horizon_days,
        "horizon_source": intervention.horizon_source,
        "horizon_closes_at": intervention.horizon_closes_at,
        "window_closes_at": state.window_closes_at,
        "state": state.state,
        "known_at": state.known_at,
        "outcome": OutcomeOutputSerializer(outcome).data if outcome is not None else None,
        "episode_id": intervention.episode_id,
    }
