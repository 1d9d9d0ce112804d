"""One application error class and one exception handler for the whole API.

Every error leaves the API as ``{"code": str, "detail": str, "extra": {...}}`` with an
HTTP status that fits. ``code`` is stable and documented; ``detail`` is for humans.
Services raise ``MemoryHubError`` subclasses; views never catch.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError
from django.http import Http404
from rest_framework import exceptions as drf_exceptions
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback


class MemoryHubError(Exception):
    """Base error: subclasses declare ``status_code``, ``default_code`` and ``default_detail``."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "error"
    default_detail = "The request could not be completed."

    def __init__(self, detail: str | None = None, *, extra: dict | None = None):
        self.detail = detail or self.default_detail
        self.extra = extra or {}
        super().__init__(self.detail)


class BankNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "bank_not_found"
    default_detail = "No such bank."


class EpisodeNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "episode_not_found"
    default_detail = "No such episode in this bank."


class BatchNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "batch_not_found"
    default_detail = "No such retain batch in this bank."


class BankSlugTaken(MemoryHubError):
    status_code = status.HTTP_409_CONFLICT
    default_code = "bank_slug_taken"
    default_detail = "A bank with this slug already exists in the tenant."


class IdempotencyKeyReused(MemoryHubError):
    status_code = status.HTTP_409_CONFLICT
    default_code = "idempotency_key_reused"
    default_detail = "This Idempotency-Key was already used for a different request body."


class BankAmbiguous(MemoryHubError):
    status_code = status.HTTP_409_CONFLICT
    default_code = "bank_ambiguous"
    default_detail = (
        "You reach a bank with this slug in several tenants: name one with '?tenant=<slug>' or the "
        "'X-MemoryHub-Tenant' header ('extra.tenants' lists them)."
    )


class ScopeRequired(MemoryHubError):
    status_code = status.HTTP_403_FORBIDDEN
    default_code = "scope_required"
    default_detail = "This API key lacks the scope this action needs ('extra.scope')."


class TenantRequired(MemoryHubError):
    default_code = "tenant_required"
    default_detail = "You belong to several tenants: name one with the 'tenant' field."


class EmbeddingUnavailable(MemoryHubError):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "embedding_unavailable"
    default_detail = "The embedding model could not be loaded."


class InvalidPolicy(MemoryHubError):
    default_code = "invalid_policy"
    default_detail = "The bank policy is not valid; 'extra' names the field."


class FactNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "fact_not_found"
    default_detail = "No such fact in this bank."


class BeliefNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "belief_not_found"
    default_detail = "No such belief in this bank."


class MentalModelNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "mental_model_not_found"
    default_detail = "No such mental model in this bank."


class MentalModelNameTaken(MemoryHubError):
    status_code = status.HTTP_409_CONFLICT
    default_code = "mental_model_name_taken"
    default_detail = "A mental model with this name already exists in the bank."


class MemoryDefenseBlocked(MemoryHubError):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_code = "memory_defense_blocked"
    default_detail = (
        "The bank's Memory Defense policy blocks sensitive data; 'extra' lists the kinds found (never the values)."
    )


class ErasureRequestNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "erasure_request_not_found"
    default_detail = "No such erasure request."


class ErasureAliasTooShort(MemoryHubError):
    default_code = "erasure_alias_too_short"
    default_detail = (
        "An erasure alias needs at least 4 letters or digits (or a phone number): a shorter one would redact every "
        "matching word in the bank for good. 'extra.aliases' lists the positions of the refused aliases."
    )


class ApiKeyNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "api_key_not_found"
    default_detail = "No such API key in this tenant."


class ApiKeyScopeNotGrantable(MemoryHubError):
    status_code = status.HTTP_403_FORBIDDEN
    default_code = "api_key_scope_not_grantable"
    default_detail = "You may not grant these scopes: a key never has more powers than whoever issues it."


class ApiKeyLifetimeExceeded(MemoryHubError):
    default_code = "api_key_lifetime_exceeded"
    default_detail = (
        "This expiry is later than allowed: by the tenant's maximum key lifetime, or by the issuing key's own expiry."
    )


class ApiKeyRateLimitTooHigh(MemoryHubError):
    default_code = "api_key_rate_limit_too_high"
    default_detail = "The rate limit is above what this key may have (the tenant's limit, or the issuing key's)."


class InterventionNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "intervention_not_found"
    default_detail = "No intervention was recorded for this account; outcomes are scored against interventions."


class InterventionAlreadyScored(MemoryHubError):
    status_code = status.HTTP_409_CONFLICT
    default_code = "intervention_already_scored"
    default_detail = (
        "This intervention already has a different outcome; an intervention is scored once "
        "(the same result again is accepted as a duplicate)."
    )


class OutcomeAccountMismatch(MemoryHubError):
    default_code = "outcome_account_mismatch"
    default_detail = "The named intervention belongs to another account."


class OutcomeBeforeIntervention(MemoryHubError):
    default_code = "outcome_before_intervention"
    default_detail = "The outcome happened before the named intervention started."


class PlayNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "play_not_found"
    default_detail = "No play with this name in the bank's catalogue."


class TriageDecisionNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "triage_decision_not_found"
    default_detail = "No such triage decision in this bank."


class LessonWithoutEvidence(MemoryHubError):
    default_code = "lesson_without_evidence"
    default_detail = "Each lesson needs evidence: episode ids from this bank, or the play and segment it is about."


class ReviewItemNotFound(MemoryHubError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "review_item_not_found"
    default_detail = "No such review item in this bank."


class ReviewItemAlreadyDecided(MemoryHubError):
    status_code = status.HTTP_409_CONFLICT
    default_code = "review_item_already_decided"
    default_detail = "This review item was already decided differently."


class ReviewDecisionInvalid(MemoryHubError):
    default_code = "review_decision_invalid"
    default_detail = "This decision does not apply to this kind of review item."


class ImportLineInvalid(MemoryHubError):
    default_code = "import_line_invalid"
    default_detail = "A line of the import is not a valid record ('extra.line'); nothing of its batch was stored."


class ImportFormatUnknown(MemoryHubError):
    default_code = "import_format_unknown"
    default_detail = "Unknown import format; use memoryhub, jsonl or mem0."


class ImportTrustRequiresAdmin(MemoryHubError):
    status_code = status.HTTP_403_FORBIDDEN
    default_code = "import_trust_requires_admin"
    default_detail = (
        "trust_file=true takes beliefs, evidence, plays and review decisions from the file as they are: "
        "it needs the admin scope (a tenant admin). Without it, import re-derives them from the episodes."
    )


class ImportTooLarge(MemoryHubError):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "import_too_large"
    default_detail = "The import is larger than the server accepts; 'extra.limit' says which limit (line or body)."


class LLMError(MemoryHubError):
    """The configured LLM failed, timed out or answered with something unusable."""

    status_code = status.HTTP_502_BAD_GATEWAY
    default_code = "llm_failed"
    default_detail = "The language model did not return a usable answer."


# DRF exception class -> stable code. DRF's own codes are kept where they are already stable.
_DRF_CODES = {
    drf_exceptions.ParseError: "malformed_request",
    drf_exceptions.NotAuthenticated: "not_authenticated",
    drf_exceptions.AuthenticationFailed: "authentication_failed",
    drf_exceptions.PermissionDenied: "permission_denied",
    drf_exceptions.NotFound: "not_found",
    drf_exceptions.MethodNotAllowed: "method_not_allowed",
    drf_exceptions.NotAcceptable: "not_acceptable",
    drf_exceptions.UnsupportedMediaType: "unsupported_media_type",
    drf_exceptions.Throttled: "rate_limited",
    drf_exceptions.ValidationError: "validation_error",
}


def _error(code: str, detail: str, status_code: int, extra: dict | None = None, headers=None) -> Response:
    return Response({"code": code, "detail": detail, "extra": extra or {}}, status=status_code, headers=headers)


def exception_handler(exc, context):
    """Render every error as ``{"code", "detail", "extra"}``."""
    if isinstance(exc, MemoryHubError):
        return _error(exc.default_code, exc.detail, exc.status_code, exc.extra)
    from memoryhub.unavailable import DATABASE_UNAVAILABLE, RETRY_AFTER_SECONDS, is_dependency_error

    if is_dependency_error(exc):
        set_rollback()
        return Response(DATABASE_UNAVAILABLE, status=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
    if isinstance(exc, DataError):
        # A value PostgreSQL cannot store (out of range, an invalid byte sequence): the client's input, never a 500.
        set_rollback()
        return _error(
            "validation_error",
            "A value is out of range or cannot be stored.",
            400,
            {
                "fields": {
                    "non_field_errors": [{"message": "A value is out of range or cannot be stored.", "code": "invalid"}]
                }
            },
        )
    if isinstance(exc, RequestDataTooBig):
        return _error("payload_too_large", "The request body is larger than the server accepts.", 413)
    if isinstance(exc, TooManyFieldsSent):
        return _error("payload_too_large", "The request has too many fields.", 413)
    if isinstance(exc, DjangoValidationError):
        exc = drf_exceptions.ValidationError(detail=exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    if isinstance(exc, Http404):
        exc = drf_exceptions.NotFound()
    if isinstance(exc, DjangoPermissionDenied):
        exc = drf_exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a real bug: let Django log it and answer 500

    code = next((c for klass, c in _DRF_CODES.items() if isinstance(exc, klass)), "error")
    if isinstance(exc, drf_exceptions.ValidationError):
        fields = exc.get_full_details()
        if not isinstance(fields, dict):
            fields = {"non_field_errors": fields}
        detail = _first_message(exc.detail) or "Invalid input."
        response.data = {"code": code, "detail": detail, "extra": {"fields": fields}}
    else:
        response.data = {"code": code, "detail": str(exc.detail), "extra": {}}
    return response


def _first_message(detail, path: str = "") -> str:
    """The first error message, prefixed with the field path it belongs to."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            message = _first_message(value, f"{path}.{key}" if path else str(key))
            if message:
                return message
        return ""
    if isinstance(detail, list):
        for index, value in enumerate(detail):
            nested = path if not isinstance(value, (dict, list)) else f"{path}[{index}]"
            message = _first_message(value, nested)
            if message:
                return message
        return ""
    text = str(detail)
    if path and path != "non_field_errors":
        return f"{path}: {text}"
    return text
