"""Input serializer base: unknown fields are an error, and every value has its JSON type.

DRF coerces by default (``"10"`` becomes 10 for an integer, 12345 becomes ``"12345"``
for a string). A JSON API that coerces hides client bugs and makes the schema a lie, so
a value of the wrong JSON type is a ``validation_error`` naming the field.

Times are kept between the years 1000 and 9000: the services subtract horizons and add
grace periods, and a time near year 1 or 9999 would overflow that arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from rest_framework import serializers

from memoryhub.parsers import holds_nul

_JSON_NAMES = {
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
}


EARLIEST_TIME = datetime(1000, 1, 1, tzinfo=UTC)
LATEST_TIME = datetime(9000, 1, 1, tzinfo=UTC)


def within_time_range(value: datetime) -> datetime:
    """``value`` when it lies between ``EARLIEST_TIME`` and ``LATEST_TIME``, otherwise a ``validation_error``."""
    if not EARLIEST_TIME <= value < LATEST_TIME:
        raise serializers.ValidationError(
            f"Expected a time between {EARLIEST_TIME.year} and {LATEST_TIME.year}.", code="out_of_range"
        )
    return value


def _expected_type(field) -> tuple[type, ...] | None:
    """The JSON types ``field`` accepts, or None when it takes any (a JSON field, say)."""
    if isinstance(field, serializers.BooleanField):
        return (bool,)
    if isinstance(field, serializers.IntegerField):
        return (int,)
    if isinstance(field, serializers.FloatField | serializers.DecimalField):
        return (int, float)
    if isinstance(field, serializers.ChoiceField):
        kinds = {type(key) for key in field.choices}
        return tuple(kinds) if kinds and kinds <= {str, int} else None
    if isinstance(field, serializers.CharField | serializers.DateTimeField | serializers.DateField):
        return (str,)
    if isinstance(field, serializers.ListField | serializers.ListSerializer):
        return (list,)
    if isinstance(field, serializers.DictField | serializers.Serializer):
        return (dict,)
    return None


def _type_error(field, value):
    """An error for ``value`` if it is not of ``field``'s JSON type (None is left to ``allow_null``)."""
    if value is None:
        return None
    expected = _expected_type(field)
    if expected is not None:
        wrong_bool = isinstance(value, bool) and bool not in expected
        if wrong_bool or not isinstance(value, expected):
            names = " or ".join(_JSON_NAMES[kind] for kind in expected if kind in _JSON_NAMES)
            return [f"Expected {names}."]
    if isinstance(field, serializers.DictField | serializers.JSONField) and holds_nul(value):
        return ["Null characters are not allowed."]
    if isinstance(field, serializers.ListField) and isinstance(value, list):
        errors = {index: error for index, item in enumerate(value) if (error := _type_error(field.child, item))}
        return errors or None
    return None


class StrictInputSerializer(serializers.Serializer):
    """Rejects keys it does not declare (a typo in a filter must not widen a query) and values of another JSON type.

    A serializer that parses a query string (where every value is text) sets ``from_query_string = True``:
    it keeps the unknown-key check and DRF's parsing of text into numbers, booleans and times.
    """

    from_query_string = False

    def get_fields(self):
        fields = super().get_fields()
        for field in fields.values():
            if isinstance(field, serializers.DateTimeField):
                field.validators.append(within_time_range)
        return fields

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown}, code="unknown_field")
        if isinstance(data, Mapping) and not self.from_query_string:
            errors = {}
            for name, field in self.fields.items():
                if name in data and not field.read_only and (error := _type_error(field, data[name])):
                    errors[name] = error
            if errors:
                raise serializers.ValidationError(errors, code="invalid_type")
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
        return serializers.DateTimeField(validators=[within_time_range]).run_validation(raw)
    except serializers.ValidationError as exc:
        raise serializers.ValidationError({name: exc.detail}, code="invalid") from exc
