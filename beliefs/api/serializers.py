"""Episode, retain and recall serializers: translation only."""

from __future__ import annotations

import json

from django.conf import settings
from rest_framework import serializers

from beliefs.engine.rendering import SOURCE_PATTERN
from beliefs.extractors.structured import event_problems
from beliefs.models import Episode, Provenance, RetainBatch
from memoryhub.serializers import StrictInputSerializer

_LIMITS = settings.MEMORYHUB
_SOURCE = SOURCE_PATTERN


class RetainItemInputSerializer(StrictInputSerializer):
    content = serializers.CharField(max_length=_LIMITS["MAX_CONTENT_CHARS"], trim_whitespace=False)
    occurred_at = serializers.DateTimeField(required=False)
    source = serializers.RegexField(_SOURCE, required=False, default="api")
    subject = serializers.CharField(max_length=255, required=False, allow_blank=True, default="")
    thread = serializers.CharField(
        max_length=128,
        required=False,
        allow_blank=True,
        default="",
        help_text="Conversation, session or incident id; recall brings neighbouring episodes of a thread along.",
    )
    provenance = serializers.ChoiceField(choices=Provenance.choices, required=False, default=Provenance.USER)
    metadata = serializers.DictField(required=False, default=dict)
    idempotency_key = serializers.CharField(max_length=128, required=False)

    def validate_content(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("Content is empty.", code="blank")
        return value

    def validate_metadata(self, value: dict) -> dict:
        size = len(json.dumps(value, ensure_ascii=False, default=str).encode())
        if size > _LIMITS["MAX_METADATA_BYTES"]:
            raise serializers.ValidationError(
                f"Metadata is {size} bytes; the limit is {_LIMITS['MAX_METADATA_BYTES']}.", code="too_large"
            )
        if "\x00" in json.dumps(value, default=str).replace("\\u0000", "\x00"):
            raise serializers.ValidationError("Metadata may not contain NUL characters.", code="null_characters")
        problems = event_problems(value)
        if problems:
            raise serializers.ValidationError(problems, code="invalid_event")
        return value


class RetainInputSerializer(StrictInputSerializer):
    items = serializers.ListField(
        child=RetainItemInputSerializer(), min_length=1, max_length=_LIMITS["MAX_BATCH_ITEMS"]
    )
    # "async" is a Python keyword, so the field is renamed in to_internal_value.
    run_async = serializers.BooleanField(required=False, default=False, help_text="Send as `async`.")

    def to_internal_value(self, data):
        if isinstance(data, dict) and "async" in data:
            data = {**data, "run_async": data["async"]}
            del data["async"]
        return super().to_internal_value(data)


class RetainOutcomeSerializer(serializers.Serializer):
    episode_id = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(
        choices=["created", "duplicate", "suppressed"], help_text="suppressed: the item's subject was erased."
    )


class UsageSerializer(serializers.Serializer):
    tokens = serializers.IntegerField(help_text="cl100k_base tokens of the text involved.")
    items = serializers.IntegerField()
    elapsed_ms = serializers.FloatField()


class RetainOutputSerializer(serializers.Serializer):
    batch_id = serializers.IntegerField()
    created = serializers.IntegerField()
    duplicates = serializers.IntegerField()
    replayed = serializers.BooleanField()
    items = RetainOutcomeSerializer(many=True)
    usage = UsageSerializer()
    redacted = serializers.DictField(
        child=serializers.IntegerField(), help_text="Memory Defense: how many values of each kind were redacted."
    )


class RetainBatchOutputSerializer(serializers.ModelSerializer):
    batch_id = serializers.IntegerField(source="pk")
    items = serializers.JSONField(source="results")

    class Meta:
        model = RetainBatch
        fields = [
            "batch_id",
            "mode",
            "status",
            "item_count",
            "created_count",
            "duplicate_count",
            "items",
            "usage",
            "error",
            "attempts",
            "extraction_status",
            "created_at",
            "started_at",
            "finished_at",
        ]


class EpisodeOutputSerializer(serializers.ModelSerializer):
    # (kept beside the episode, not on it: ``beliefs.models.EpisodeExtraction``)
    extracted_at = serializers.DateTimeField(source="extraction.extracted_at", required=False, allow_null=True)

    class Meta:
        model = Episode
        fields = [
            "id",
            "content",
            "occurred_at",
            "recorded_at",
            "source",
            "subject",
            "thread",
            "provenance",
            "metadata",
            "content_hash",
            "token_count",
            "extracted_at",
            "injection_flags",
            "injection_spans",
            "echo_of",
            "quarantine_released_at",
        ]


class RecallFiltersInputSerializer(StrictInputSerializer):
    source = serializers.ListField(child=serializers.CharField(max_length=64), required=False, max_length=50)
    subject = serializers.ListField(child=serializers.CharField(max_length=255), required=False, max_length=50)
    occurred_after = serializers.DateTimeField(required=False)
    occurred_before = serializers.DateTimeField(required=False)

    def to_internal_value(self, data):
        # A single string is accepted where a list is expected ("source": "alert").
        if isinstance(data, dict):
            data = {k: ([v] if k in ("source", "subject") and isinstance(v, str) else v) for k, v in data.items()}
        return super().to_internal_value(data)

    def validate(self, attrs):
        after, before = attrs.get("occurred_after"), attrs.get("occurred_before")
        if after and before and after > before:
            raise serializers.ValidationError(
                {"occurred_after": ["Must not be later than occurred_before."]}, code="invalid_time_range"
            )
        return attrs


class RecallInputSerializer(StrictInputSerializer):
    query = serializers.CharField(max_length=_LIMITS["MAX_QUERY_CHARS"])
    budget_tokens = serializers.IntegerField(min_value=1, max_value=_LIMITS["MAX_BUDGET_TOKENS"])
    filters = RecallFiltersInputSerializer(required=False)
    as_of = serializers.DateTimeField(required=False)
    channels = serializers.ListField(
        child=serializers.ChoiceField(choices=["semantic", "keyword", "graph", "temporal", "recent"]),
        required=False,
        min_length=1,
        help_text="Channels to run (default: semantic, keyword, graph, temporal; 'recent' is newest-first).",
    )
    rerank = serializers.BooleanField(required=False, default=True, help_text="Rerank the fused pool (default on).")
    now = serializers.DateTimeField(
        required=False, help_text="Reference time for relative expressions (default: the bank's latest episode)."
    )
    kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=["episode", "belief", "fact", "play"]),
        required=False,
        min_length=1,
        help_text="Item kinds to return (default all); a belief is preferred over the episodes it summarises.",
    )
    explain = serializers.BooleanField(required=False, default=False)
    render = serializers.ChoiceField(
        choices=["items", "prompt"],
        required=False,
        default="items",
        help_text="'prompt' adds a fenced, untrusted-marked rendering that fits the budget.",
    )


class RecallProvenanceSerializer(serializers.Serializer):
    episode_ids = serializers.ListField(child=serializers.IntegerField())
    occurred_at = serializers.DateTimeField()
    recorded_at = serializers.DateTimeField()
    source = serializers.CharField()
    subject = serializers.CharField()
    provenance = serializers.CharField()
    metadata = serializers.DictField()


class RecallItemOutputSerializer(serializers.Serializer):
    id = serializers.CharField()
    kind = serializers.CharField()
    text = serializers.CharField()
    tokens = serializers.IntegerField()
    score = serializers.FloatField()
    channels = serializers.ListField(child=serializers.CharField())
    untrusted = serializers.BooleanField()
    flags = serializers.ListField(child=serializers.CharField(), help_text="Prompt-injection markers found at retain.")
    trimmed = serializers.BooleanField()
    provenance = RecallProvenanceSerializer()
    explain = serializers.DictField(required=False)


class RecallOutputSerializer(serializers.Serializer):
    items = RecallItemOutputSerializer(many=True)
    budget_tokens = serializers.IntegerField()
    tokens_used = serializers.IntegerField()
    candidates = serializers.IntegerField()
    dropped_by_budget = serializers.IntegerField()
    trimmed = serializers.IntegerField()
    usage = UsageSerializer()
    prompt = serializers.DictField(required=False, help_text="With render=prompt: text, tokens, items.")
    explain = serializers.DictField(required=False)
