"""Request bodies: JSON only, bounded in depth, and never holding what PostgreSQL cannot store.

A body nested deeper than ``MAX_JSON_DEPTH`` (retain metadata 400 levels deep, say), or
JSON so deep the decoder itself gives up, is a 400 ``malformed_request`` naming the
reason; nothing reads it further. (NUL characters, which PostgreSQL text and jsonb cannot
store, are refused per field by the input serializers.)
"""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_JSON_DEPTH = 64


class BoundedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.") from exc
        check_json(data)
        return data


def check_json(data, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Raise ``ParseError`` if ``data`` nests deeper than ``max_depth`` (iterative, so any depth is safe)."""
    if json_depth(data) > max_depth:
        raise ParseError(f"JSON nested deeper than {max_depth} levels.")


def json_depth(data) -> int:
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, depth)
            stack.extend((item, depth + 1) for item in (value.values() if isinstance(value, dict) else value))
    return deepest


def holds_nul(data) -> bool:
    """Whether any string (or object key) inside ``data`` holds a NUL character."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                return True
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False
