"""Fact, belief, mental-model and reflect serializers: translation only."""

from __future__ import annotations

from django.conf import settings
from rest_framework import serializers

from beliefs.models import Belief, BeliefVersion, DefenseRescan, Evidence, Fact, MentalModel
from beliefs.services.mental_models import FILTER_KEYS
from memoryhub.serializers import StrictInputSerializer

_LIMITS = settings.MEMORYHUB


class FactOutputSerializer(serializers.ModelSerializer):
    episode_id = serializers.IntegerField()
    invalidated_by_id = serializers.IntegerField(allow_null=True)

    class Meta:
        model = Fact
        fields = [
            "id",
            "episode_id",
            "subject",
            "predicate",
            "object",
            "statement",
            "negated",
            "hedged",
            "functional",
            "quote",
            "quote_start",
            "quote_end",
            "extractor",
            "provenance",
            "valid_at",
            "invalid_at",
            "created_at",
            "expired_at",
            "invalidated_by_id",
            "consolidated_at",
        ]


class BeliefOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Belief
        fields = [
            "id",
            "statement",
            "subject",
            "predicate",
            "object",
            "status",
            "confidence",
            "base_confidence",
            "proof_count",
            "contradiction_count",
            "first_seen_at",
            "last_confirmed_at",
            "valid_from",
            "valid_to",
            "formed_at",
            "updated_at",
            "version",
        ]


class EvidenceOutputSerializer(serializers.ModelSerializer):
    episode_id = serializers.IntegerField()
    fact_id = serializers.IntegerField(allow_null=True)

    class Meta:
        model = Evidence
        fields = [
            "id",
            "stance",
            "episode_id",
            "fact_id",
            "quote",
            "quote_start",
            "quote_end",
            "weight",
            "observed_at",
            "recorded_at",
        ]


class BeliefVersionOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = BeliefVersion
        fields = [
            "version",
            "cause",
            "old_statement",
            "new_statement",
            "old_confidence",
            "new_confidence",
            "old_proof_count",
            "new_proof_count",
            "old_status",
            "new_status",
            "evidence_ids",
            "effective_at",
            "created_at",
        ]


class BeliefDetailOutputSerializer(BeliefOutputSerializer):
    evidence = EvidenceOutputSerializer(many=True)
    versions = BeliefVersionOutputSerializer(many=True)

    class Meta(BeliefOutputSerializer.Meta):
        fields = [*BeliefOutputSerializer.Meta.fields, "evidence", "versions"]


class BeliefAsOfOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    statement = serializers.CharField()
    status = serializers.CharField()
    confidence = serializers.FloatField()
    proof_count = serializers.IntegerField()
    version = serializers.IntegerField()
    effective_at = serializers.DateTimeField()


class MentalModelInputSerializer(StrictInputSerializer):
    name = serializers.RegexField(r"^[a-z0-9][a-z0-9_-]{0,62}$", help_text="Lower-case slug, unique in the bank.")
    question = serializers.CharField(max_length=_LIMITS["MAX_QUERY_CHARS"])
    belief_filter = serializers.DictField(
        required=False,
        default=dict,
        help_text="Optional: predicate, object, subject_contains, min_proof_count, min_confidence, statuses.",
    )
    max_beliefs = serializers.IntegerField(required=False, default=10, min_value=1, max_value=100)

    def validate_belief_filter(self, value: dict) -> dict:
        unknown = set(value) - FILTER_KEYS
        if unknown:
            raise serializers.ValidationError(f"Unknown keys: {', '.join(sorted(unknown))}.", code="unknown_field")
        statuses = value.get("statuses")
        if statuses is not None and (not isinstance(statuses, list) or not set(statuses) <= set(Belief.Status.values)):
            raise serializers.ValidationError("'statuses' must be a list of belief statuses.", code="invalid")
        return value


class MentalModelOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = MentalModel
        fields = [
            "name",
            "question",
            "belief_filter",
            "max_beliefs",
            "status",
            "answer",
            "citations",
            "source_belief_ids",
            "refreshed_at",
            "created_at",
        ]


class ReflectInputSerializer(StrictInputSerializer):
    question = serializers.CharField(max_length=_LIMITS["MAX_QUERY_CHARS"])
    budget_tokens = serializers.IntegerField(min_value=16, max_value=_LIMITS["MAX_BUDGET_TOKENS"])


class ReflectOutputSerializer(serializers.Serializer):
    question = serializers.CharField()
    answer = serializers.CharField()
    supported = serializers.BooleanField()
    sources = serializers.ListField(child=serializers.CharField())
    citations = serializers.ListField(child=serializers.DictField())
    mental_model = serializers.CharField(allow_null=True)
    llm_used = serializers.BooleanField()
    budget_tokens = serializers.IntegerField()
    tokens_used = serializers.IntegerField()
    notes = serializers.ListField(child=serializers.CharField())


class BackgroundStatusOutputSerializer(serializers.Serializer):
    paused = serializers.BooleanField()
    unextracted_episodes = serializers.IntegerField()
    unconsolidated_facts = serializers.IntegerField()
    lag_seconds = serializers.FloatField()
    facts = serializers.IntegerField()
    beliefs = serializers.IntegerField()
    queued = serializers.BooleanField(required=False)


class DefenseRescanOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = DefenseRescan
        fields = ["id", "status", "total", "scanned", "redacted_episodes", "kinds", "created_at", "finished_at"]
