"""One exception class per MemoryHub error ``code``.

Every API error is JSON ``{"code", "detail", "extra"}``; the client raises the class
registered for ``code`` (``BankNotFound`` for ``bank_not_found``), all subclasses of
``MemoryHubError``. Mid-level classes group them by meaning (``NotFoundError``,
``ConflictError``…) so callers can catch broadly. A code this client does not know
(a newer server) raises the class for its HTTP status.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

import httpx


class MemoryHubError(Exception):
    """Base class: ``code``, ``detail``, ``extra`` and ``status_code`` as the server sent them."""

    code: str = "error"

    def __init__(
        self,
        detail: str,
        *,
        code: str | None = None,
        extra: dict[str, Any] | None = None,
        status_code: int | None = None,
        response: httpx.Response | None = None,
    ):
        super().__init__(detail)
        self.detail = detail
        self.code = code or type(self).code
        self.extra = extra or {}
        self.status_code = status_code
        self.response = response

    def __str__(self) -> str:
        prefix = f"{self.status_code} " if self.status_code else ""
        return f"{prefix}{self.code}: {self.detail}"


class TransportError(MemoryHubError):
    """The server could not be reached, or the connection broke (after the retries)."""

    code = "transport_error"


# --- groups by meaning ----------------------------------------------------------------
class BadRequestError(MemoryHubError):
    code = "bad_request"


class AuthenticationError(MemoryHubError):
    code = "authentication_error"


class PermissionError_(MemoryHubError):  # noqa: N801 - the builtin PermissionError means something else
    code = "permission_error"


class NotFoundError(MemoryHubError):
    code = "not_found"


class ConflictError(MemoryHubError):
    code = "conflict"


class UnavailableError(MemoryHubError):
    """The service is temporarily unable to answer (rate limit, dependency down)."""

    code = "unavailable"


class ServerError(MemoryHubError):
    code = "server_error"


# --- one class per code -----------------------------------------------------------------
class ValidationError(BadRequestError):
    """``extra["fields"]`` maps each bad field to its errors (with per-field codes)."""

    code = "validation_error"


class MalformedRequest(BadRequestError):
    code = "malformed_request"


class UnsupportedMediaType(BadRequestError):
    code = "unsupported_media_type"


class NotAcceptable(BadRequestError):
    code = "not_acceptable"


class PayloadTooLarge(BadRequestError):
    code = "payload_too_large"


class InvalidPolicy(BadRequestError):
    code = "invalid_policy"


class ApiKeyLifetimeExceeded(BadRequestError):
    """The key would outlive the tenant's longest key lifetime (``extra["latest_expiry"]``)."""

    code = "api_key_lifetime_exceeded"


class ApiKeyRateLimitTooHigh(BadRequestError):
    """A key's rate limit above the issuer's own (``extra["max"]``)."""

    code = "api_key_rate_limit_too_high"


class ErasureAliasTooShort(BadRequestError):
    code = "erasure_alias_too_short"


class TenantRequired(BadRequestError):
    code = "tenant_required"


class LessonWithoutEvidence(BadRequestError):
    code = "lesson_without_evidence"


class ReviewDecisionInvalid(BadRequestError):
    code = "review_decision_invalid"


class OutcomeAccountMismatch(BadRequestError):
    code = "outcome_account_mismatch"


class OutcomeBeforeIntervention(BadRequestError):
    code = "outcome_before_intervention"


class ImportLineInvalid(BadRequestError):
    """A line of an import is malformed: ``extra["line"]`` is its number; nothing of its batch was stored."""

    code = "import_line_invalid"


class ImportFormatUnknown(BadRequestError):
    code = "import_format_unknown"


class ImportTooLarge(PayloadTooLarge):
    """A line or the whole body of an import is over the server's limit (``extra["limit"]``: line or body)."""

    code = "import_too_large"


class MemoryDefenseBlocked(BadRequestError):
    """The bank's Memory Defense policy blocks sensitive data (``extra`` lists kinds, never values)."""

    code = "memory_defense_blocked"


class NotAuthenticated(AuthenticationError):
    code = "not_authenticated"


class AuthenticationFailed(AuthenticationError):
    code = "authentication_failed"


class PermissionDenied(PermissionError_):
    code = "permission_denied"


class ScopeRequired(PermissionDenied):
    """The API key lacks the scope the action needs (``extra["scope"]``, e.g. ``review`` for review decisions)."""

    code = "scope_required"


class ApiKeyScopeNotGrantable(PermissionError_):
    """The issuer cannot grant these scopes (``extra["refused"]``, ``extra["grantable"]``)."""

    code = "api_key_scope_not_grantable"


class ImportTrustRequiresAdmin(PermissionError_):
    """``trust_file=True`` needs the admin scope."""

    code = "import_trust_requires_admin"


class NotFound(NotFoundError):
    code = "not_found"


class BankNotFound(NotFoundError):
    code = "bank_not_found"


class EpisodeNotFound(NotFoundError):
    code = "episode_not_found"


class BatchNotFound(NotFoundError):
    code = "batch_not_found"


class FactNotFound(NotFoundError):
    code = "fact_not_found"


class BeliefNotFound(NotFoundError):
    code = "belief_not_found"


class MentalModelNotFound(NotFoundError):
    code = "mental_model_not_found"


class ErasureRequestNotFound(NotFoundError):
    code = "erasure_request_not_found"


class ApiKeyNotFound(NotFoundError):
    code = "api_key_not_found"


class InterventionNotFound(NotFoundError):
    code = "intervention_not_found"


class ReviewItemNotFound(NotFoundError):
    code = "review_item_not_found"


class PlayNotFound(NotFoundError):
    code = "play_not_found"


class TriageDecisionNotFound(NotFoundError):
    code = "triage_decision_not_found"


class MethodNotAllowed(BadRequestError):
    code = "method_not_allowed"


class BankSlugTaken(ConflictError):
    code = "bank_slug_taken"


class BankAmbiguous(ConflictError):
    """A person reaches this bank slug in several tenants (``extra["tenants"]``): name one."""

    code = "bank_ambiguous"


class IdempotencyKeyReused(ConflictError):
    code = "idempotency_key_reused"


class MentalModelNameTaken(ConflictError):
    code = "mental_model_name_taken"


class ReviewItemAlreadyDecided(ConflictError):
    code = "review_item_already_decided"


class InterventionAlreadyScored(ConflictError):
    code = "intervention_already_scored"


class RateLimited(UnavailableError):
    """429: ``retry_after`` is the server's ``Retry-After`` in seconds, when it sent one."""

    code = "rate_limited"

    @property
    def retry_after(self) -> float | None:
        if self.response is None:
            return None
        return parse_retry_after(self.response.headers.get("Retry-After"))


class EmbeddingUnavailable(UnavailableError):
    code = "embedding_unavailable"


class LLMFailed(ServerError):
    code = "llm_failed"


def _all_subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found.append(sub)
        found.extend(_all_subclasses(sub))
    return found


_GROUPS = {
    BadRequestError,
    AuthenticationError,
    PermissionError_,
    NotFoundError,
    ConflictError,
    UnavailableError,
    ServerError,
    TransportError,
}
#: code -> exception class, for every code the server documents.
ERROR_CLASSES: dict[str, type[MemoryHubError]] = {
    cls.code: cls for cls in _all_subclasses(MemoryHubError) if cls not in _GROUPS
}

_BY_STATUS: dict[int, type[MemoryHubError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionError_,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLarge,
    422: BadRequestError,
    429: RateLimited,
    502: ServerError,
    503: UnavailableError,
}


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from datetime import datetime
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def error_from_response(response: httpx.Response) -> MemoryHubError:
    """The exception for an error response (JSON body with ``code`` or anything else)."""
    code, detail, extra = None, None, {}
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        code = body.get("code") if isinstance(body.get("code"), str) else None
        detail = body.get("detail")
        extra = body.get("extra") if isinstance(body.get("extra"), dict) else {}
    if detail is None:
        detail = (response.text or response.reason_phrase or "HTTP error")[:500]
    cls = ERROR_CLASSES.get(code or "")
    if cls is None:
        cls = _BY_STATUS.get(response.status_code, ServerError if response.status_code >= 500 else MemoryHubError)
    return cls(
        str(detail),
        code=code or f"http_{response.status_code}",
        extra=extra,
        status_code=response.status_code,
        response=response,
    )
