"""OpenAPI generation: list filters are documented, and every operation states the error answers it can give.

Each error is ``{"code", "detail", "extra"}`` (component ``Error``); the statuses are
the ones the one exception handler produces for any route. A 429 carries
``Retry-After``.
"""

from __future__ import annotations

from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.contrib.django_filters import DjangoFilterExtension
from drf_spectacular.openapi import AutoSchema


class MemoryHubAutoSchema(AutoSchema):
    """Documents the FilterSet of every list: MemoryHub's lists are ``get`` handlers on bank-scoped views, which
    spectacular neither recognises as lists nor can ask for a queryset (there is no caller, so no bank)."""

    def _get_filter_parameters(self):
        filterset = getattr(self.view, "filterset_class", None)
        if self.method != "GET" or filterset is None:
            return super()._get_filter_parameters()
        extension = DjangoFilterExtension(DjangoFilterBackend())
        model = filterset._meta.model
        return [
            parameter
            for name, field in filterset.base_filters.items()
            for parameter in extension.resolve_filter_field(self, model, filterset, name, field)
        ]


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


RATE_HEADERS = {
    "X-RateLimit-Limit": {"schema": {"type": "integer"}, "description": "Requests allowed in any 60 seconds."},
    "X-RateLimit-Remaining": {"schema": {"type": "integer"}, "description": "Requests left in the window now."},
    "X-RateLimit-Reset": {
        "schema": {"type": "integer"},
        "description": "Unix time the oldest counted request leaves it.",
    },
    "X-RateLimit-Scope": {"schema": {"type": "string", "enum": ["key", "tenant"]}, "description": "The tighter limit."},
}


def declare_error_responses(result, generator, request, public):
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components["Error"] = ERROR_SCHEMA
    reference = {"$ref": "#/components/schemas/Error"}
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            for status, description in ERRORS.items():
                if status in responses:
                    continue
                response = {"description": description, "content": {"application/json": {"schema": reference}}}
                if status == "429":
                    response["headers"] = {"Retry-After": {"schema": {"type": "integer"}}, **RATE_HEADERS}
                responses[status] = response
    return result
