"""OpenAPI generation: list routes are pages, and every operation states the error answers it can give.

Each error is ``{"code", "detail", "extra"}`` (component ``Error``); the statuses are
the ones the one exception handler produces for any route. A 429 carries
``Retry-After``.
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from rest_framework.generics import GenericAPIView


class AutoSchema(SpectacularAutoSchema):
    """A GET on a view that declares its own ``pagination_class`` is a list (one page of results)."""

    def _is_list_view(self, serializer=None) -> bool:
        if self.method == "GET" and _declares_pagination(type(self.view)):
            return True
        return super()._is_list_view(serializer)


def _declares_pagination(view_class) -> bool:
    for klass in view_class.__mro__:
        if klass is GenericAPIView:
            return False
        if "pagination_class" in vars(klass):
            return True
    return False

ERROR_SCHEMA = {
    "type": "object",
    "required": ["code", "detail", "extra"],
    "properties": {
        "code": {"type": "string", "description": "Stable machine-readable code (README, 'Errors')."},
        "detail": {"type": "string"},
        "extra": {"type": "object", "additionalProperties": True},
    },
}
ERRORS = {
    "400": "Invalid input (`validation_error` with `extra.fields`) or a malformed request.",
    "401": "No credentials, or credentials that are not valid.",
    "403": "The credentials may not do this.",
    "404": "No such route, bank or object (also for objects the caller may not read).",
    "405": "Method not allowed on this route.",
    "409": "Conflicts with stored state (a taken name, a reused Idempotency-Key, a decided review item).",
    "413": "The request body is too large.",
    "415": "The body is not JSON.",
    "422": "Memory Defense blocked the content.",
    "429": "Rate limited; retry after `Retry-After` seconds.",
    "503": "A dependency (database, embedding model) is unavailable; nothing was changed.",
}


PAGE_PARAMETERS = [
    {
        "name": "limit",
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": 1},
        "description": "Items per page (at most 500; default 50).",
    },
    {
        "name": "offset",
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": 0},
        "description": "Items to skip.",
    },
]


def _page_of(items: dict) -> dict:
    return {
        "type": "object",
        "required": ["count", "next", "previous", "results"],
        "properties": {
            "count": {"type": "integer"},
            "next": {"type": "string", "format": "uri", "nullable": True},
            "previous": {"type": "string", "format": "uri", "nullable": True},
            "results": items,
        },
    }


def _paginate_lists(operation: dict) -> None:
    """Every list route answers one page (``memoryhub.pagination``): say so instead of a bare array."""
    content = operation.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {})
    if content.get("schema", {}).get("type") != "array":
        return
    content["schema"] = _page_of(content["schema"])
    names = {parameter.get("name") for parameter in operation.setdefault("parameters", [])}
    operation["parameters"].extend(p for p in PAGE_PARAMETERS if p["name"] not in names)


def declare_error_responses(result, generator, request, public):
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components["Error"] = ERROR_SCHEMA
    reference = {"$ref": "#/components/schemas/Error"}
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            if method == "get":
                _paginate_lists(operation)
            responses = operation.setdefault("responses", {})
            for status, description in ERRORS.items():
                if status in responses:
                    continue
                response = {"description": description, "content": {"application/json": {"schema": reference}}}
                if status == "429":
                    response["headers"] = {"Retry-After": {"schema": {"type": "integer"}}}
                responses[status] = response
    return result
