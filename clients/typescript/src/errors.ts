/**
 * One error class per MemoryHub error `code`.
 *
 * Every API error is JSON `{"code", "detail", "extra"}`; the client throws the class
 * registered for `code` (`BankNotFound` for `bank_not_found`), all subclasses of
 * `MemoryHubError`. Group classes (`NotFoundError`, `ConflictError`, ...) let callers
 * catch broadly. A code this client does not know (a newer server) throws the class
 * for its HTTP status.
 */

export type ErrorExtra = Record<string, unknown>;

export interface MemoryHubErrorInit {
  code?: string;
  extra?: ErrorExtra;
  status?: number;
  headers?: Headers;
  cause?: unknown;
}

export class MemoryHubError extends Error {
  static readonly code: string = "error";
  readonly code: string;
  readonly detail: string;
  readonly extra: ErrorExtra;
  /** HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** The answer's headers, when the server answered. */
  readonly headers: Headers | undefined;

  constructor(detail: string, init: MemoryHubErrorInit = {}) {
    const code = init.code ?? (new.target as typeof MemoryHubError).code;
    super(`${init.status ? `${init.status} ` : ""}${code}: ${detail}`, init.cause ? { cause: init.cause } : undefined);
    this.name = new.target.name;
    this.code = code;
    this.detail = detail;
    this.extra = init.extra ?? {};
    this.status = init.status;
    this.headers = init.headers;
  }
}

/** The server could not be reached, or the connection broke (after the retries). */
export class TransportError extends MemoryHubError {
  static override readonly code: string = "transport_error";
}

// --- groups by meaning --------------------------------------------------------------
export class BadRequestError extends MemoryHubError {
  static override readonly code: string = "bad_request";
}
export class AuthenticationError extends MemoryHubError {
  static override readonly code: string = "authentication_error";
}
export class ForbiddenError extends MemoryHubError {
  static override readonly code: string = "permission_error";
}
export class NotFoundError extends MemoryHubError {
  static override readonly code: string = "not_found_error";
}
export class ConflictError extends MemoryHubError {
  static override readonly code: string = "conflict";
}
/** The service is temporarily unable to answer (rate limit, dependency down). */
export class UnavailableError extends MemoryHubError {
  static override readonly code: string = "unavailable";
}
export class ServerError extends MemoryHubError {
  static override readonly code: string = "server_error_group";
}

// --- one class per code -------------------------------------------------------------
/** `extra.fields` maps each bad field to its errors (with per-field codes). */
export class ValidationError extends BadRequestError {
  static override readonly code = "validation_error";
}
export class MalformedRequest extends BadRequestError {
  static override readonly code = "malformed_request";
}
export class UnsupportedMediaType extends BadRequestError {
  static override readonly code = "unsupported_media_type";
}
export class NotAcceptable extends BadRequestError {
  static override readonly code = "not_acceptable";
}
export class PayloadTooLarge extends BadRequestError {
  static override readonly code = "payload_too_large";
}
export class UriTooLong extends BadRequestError {
  static override readonly code = "uri_too_long";
}
export class HeadersTooLarge extends BadRequestError {
  static override readonly code = "headers_too_large";
}
export class MethodNotAllowed extends BadRequestError {
  static override readonly code = "method_not_allowed";
}
export class InvalidPolicy extends BadRequestError {
  static override readonly code = "invalid_policy";
}
/** The key would outlive the tenant's longest key lifetime (`extra.latest_expiry`). */
export class ApiKeyLifetimeExceeded extends BadRequestError {
  static override readonly code = "api_key_lifetime_exceeded";
}
/** A key's rate limit above the issuer's own (`extra.max`). */
export class ApiKeyRateLimitTooHigh extends BadRequestError {
  static override readonly code = "api_key_rate_limit_too_high";
}
/** `extra.aliases` lists the positions of the aliases with fewer than 4 letters or digits. */
export class ErasureAliasTooShort extends BadRequestError {
  static override readonly code = "erasure_alias_too_short";
}
export class TenantRequired extends BadRequestError {
  static override readonly code = "tenant_required";
}
export class LessonWithoutEvidence extends BadRequestError {
  static override readonly code = "lesson_without_evidence";
}
export class ReviewDecisionInvalid extends BadRequestError {
  static override readonly code = "review_decision_invalid";
}
export class OutcomeAccountMismatch extends BadRequestError {
  static override readonly code = "outcome_account_mismatch";
}
export class OutcomeBeforeIntervention extends BadRequestError {
  static override readonly code = "outcome_before_intervention";
}
/** A line of an import is malformed: `extra.line` is its number; nothing of its batch was stored. */
export class ImportLineInvalid extends BadRequestError {
  static override readonly code = "import_line_invalid";
}
export class ImportFormatUnknown extends BadRequestError {
  static override readonly code = "import_format_unknown";
}
/** A line or the whole body of an import is over the server's limit (`extra.limit`: line or body). */
export class ImportTooLarge extends BadRequestError {
  static override readonly code = "import_too_large";
}
/** The bank's Memory Defense policy blocks sensitive data (`extra` lists kinds, never values). */
export class MemoryDefenseBlocked extends BadRequestError {
  static override readonly code = "memory_defense_blocked";
}
export class NotAuthenticated extends AuthenticationError {
  static override readonly code = "not_authenticated";
}
export class AuthenticationFailed extends AuthenticationError {
  static override readonly code = "authentication_failed";
}
export class PermissionDenied extends ForbiddenError {
  static override readonly code: string = "permission_denied";
}
/** The key lacks the scope the action needs (`extra.scope`, e.g. `review` for review decisions). */
export class ScopeRequired extends PermissionDenied {
  static override readonly code = "scope_required";
}
/** The issuer cannot grant these scopes (`extra.refused`, `extra.grantable`). */
export class ApiKeyScopeNotGrantable extends ForbiddenError {
  static override readonly code = "api_key_scope_not_grantable";
}
/** `trustFile: true` needs the admin scope. */
export class ImportTrustRequiresAdmin extends ForbiddenError {
  static override readonly code = "import_trust_requires_admin";
}
export class NotFound extends NotFoundError {
  static override readonly code = "not_found";
}
export class BankNotFound extends NotFoundError {
  static override readonly code = "bank_not_found";
}
export class EpisodeNotFound extends NotFoundError {
  static override readonly code = "episode_not_found";
}
export class BatchNotFound extends NotFoundError {
  static override readonly code = "batch_not_found";
}
export class FactNotFound extends NotFoundError {
  static override readonly code = "fact_not_found";
}
export class BeliefNotFound extends NotFoundError {
  static override readonly code = "belief_not_found";
}
export class MentalModelNotFound extends NotFoundError {
  static override readonly code = "mental_model_not_found";
}
export class ErasureRequestNotFound extends NotFoundError {
  static override readonly code = "erasure_request_not_found";
}
export class ApiKeyNotFound extends NotFoundError {
  static override readonly code = "api_key_not_found";
}
export class InterventionNotFound extends NotFoundError {
  static override readonly code = "intervention_not_found";
}
export class ReviewItemNotFound extends NotFoundError {
  static override readonly code = "review_item_not_found";
}
export class PlayNotFound extends NotFoundError {
  static override readonly code = "play_not_found";
}
export class TriageDecisionNotFound extends NotFoundError {
  static override readonly code = "triage_decision_not_found";
}
export class BankSlugTaken extends ConflictError {
  static override readonly code = "bank_slug_taken";
}
/** A person reaches this bank slug in several tenants (`extra.tenants`): name one. */
export class BankAmbiguous extends ConflictError {
  static override readonly code = "bank_ambiguous";
}
export class IdempotencyKeyReused extends ConflictError {
  static override readonly code = "idempotency_key_reused";
}
export class MentalModelNameTaken extends ConflictError {
  static override readonly code = "mental_model_name_taken";
}
export class ReviewItemAlreadyDecided extends ConflictError {
  static override readonly code = "review_item_already_decided";
}
export class InterventionAlreadyScored extends ConflictError {
  static override readonly code = "intervention_already_scored";
}
/** 429: `retryAfter` is the server's `Retry-After` in seconds, when it sent one. */
export class RateLimited extends UnavailableError {
  static override readonly code = "rate_limited";
  get retryAfter(): number | undefined {
    return parseRetryAfter(this.headers?.get("Retry-After") ?? null);
  }
}
export class EmbeddingUnavailable extends UnavailableError {
  static override readonly code = "embedding_unavailable";
}
/** 503 with `Retry-After`: the database did not answer; nothing half-done was stored. */
export class DatabaseUnavailable extends UnavailableError {
  static override readonly code = "database_unavailable";
}
export class LLMFailed extends ServerError {
  static override readonly code = "llm_failed";
}
/** 501: the front server does not implement the request's method. */
export class MethodNotImplemented extends ServerError {
  static override readonly code = "not_implemented";
}
/** 500: a bug on the server (it was logged there). */
export class InternalServerError extends ServerError {
  static override readonly code = "server_error";
}
/** An asynchronous retain batch ended in `failed` (`extra.batch` holds it). */
export class RetainBatchFailed extends MemoryHubError {
  static override readonly code = "retain_batch_failed";
}
/** `waitForBatch` gave up before the batch was done. */
export class RetainBatchTimeout extends MemoryHubError {
  static override readonly code = "retain_batch_timeout";
}

type ErrorClass = typeof MemoryHubError;

const CODE_CLASSES: ErrorClass[] = [
  ValidationError, MalformedRequest, UnsupportedMediaType, NotAcceptable, PayloadTooLarge, UriTooLong,
  HeadersTooLarge, MethodNotAllowed, InvalidPolicy, ApiKeyLifetimeExceeded, ApiKeyRateLimitTooHigh, ErasureAliasTooShort, TenantRequired, LessonWithoutEvidence, ReviewDecisionInvalid,
  OutcomeAccountMismatch, OutcomeBeforeIntervention, ImportLineInvalid, ImportFormatUnknown, ImportTooLarge,
  MemoryDefenseBlocked, NotAuthenticated, AuthenticationFailed, PermissionDenied, ScopeRequired, ApiKeyScopeNotGrantable, ImportTrustRequiresAdmin, NotFound,
  BankNotFound, EpisodeNotFound, BatchNotFound, FactNotFound, BeliefNotFound, MentalModelNotFound,
  ErasureRequestNotFound, ApiKeyNotFound, InterventionNotFound, ReviewItemNotFound, PlayNotFound,
  TriageDecisionNotFound, BankSlugTaken, BankAmbiguous, IdempotencyKeyReused, MentalModelNameTaken, ReviewItemAlreadyDecided,
  InterventionAlreadyScored, RateLimited, EmbeddingUnavailable, DatabaseUnavailable, LLMFailed, MethodNotImplemented,
  InternalServerError,
];

/** code -> error class, for every code the server documents. */
export const ERROR_CLASSES: Readonly<Record<string, ErrorClass>> = Object.freeze(
  Object.fromEntries(CODE_CLASSES.map((cls) => [cls.code, cls])),
);

const BY_STATUS: Record<number, ErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLarge,
  414: UriTooLong,
  422: BadRequestError,
  429: RateLimited,
  431: HeadersTooLarge,
  501: MethodNotImplemented,
  502: ServerError,
  503: UnavailableError,
};

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const when = Date.parse(value);
  if (Number.isNaN(when)) return undefined;
  return Math.max(0, (when - Date.now()) / 1000);
}

/** The error for an error answer (a JSON body with `code`, or anything else). */
export function errorFromResponse(status: number, headers: Headers, bodyText: string, statusText = ""): MemoryHubError {
  let code: string | undefined;
  let detail: string | undefined;
  let extra: ErrorExtra = {};
  try {
    const body: unknown = JSON.parse(bodyText);
    if (body && typeof body === "object" && !Array.isArray(body)) {
      const record = body as Record<string, unknown>;
      if (typeof record.code === "string") code = record.code;
      if (record.detail !== undefined && record.detail !== null) detail = String(record.detail);
      if (record.extra && typeof record.extra === "object" && !Array.isArray(record.extra)) {
        extra = record.extra as ErrorExtra;
      }
    }
  } catch {
    // not JSON: fall back to the status
  }
  if (detail === undefined) detail = (bodyText || statusText || "HTTP error").slice(0, 500);
  const cls =
    (code !== undefined ? ERROR_CLASSES[code] : undefined) ??
    BY_STATUS[status] ??
    (status >= 500 ? ServerError : MemoryHubError);
  return new cls(detail, { code: code ?? `http_${status}`, extra, status, headers });
}
