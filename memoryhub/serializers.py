"""Input serializer base: unknown fields are an error, not silently ignored."""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework import serializers


class StrictInputSerializer(serializers.Serializer):
    """Rejects keys it does not declare (a typo in a filter must not widen a query)."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown}, code="unknown_field")
        return super().to_internal_value(data)

    @classmethod
    def parse(cls, data, **context) -> dict:
        """Validate ``data`` and return the validated values (raises a 400 on error)."""
        serializer = cls(data=data, context=context)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)


def parse_datetime_param(params: Mapping, name: str):
    """An optional ISO 8601 query parameter; a malformed one is a 400 naming the parameter."""
    raw = params.get(name)
    if raw in (None, ""):
        return None
    try:
        return serializers.DateTimeField().run_validation(raw)
    except serializers.ValidationError as exc:
        raise serializers.ValidationError({name: exc.detail}, code="invalid") from exc
