/**
 * Friendly names for the API's types, taken from `schema.ts` (generated from the server's
 * OpenAPI schema by openapi-typescript: `npm run generate`; a test regenerates it from the
 * live schema and fails when it is out of date).
 *
 * Request types make optional what the server defaults (the schema lists defaulted fields
 * as required) and accept a `Date` wherever a time is expected.
 */

import type { components } from "./schema.js";

type S = components["schemas"];

type TimeKeys =
  | "occurred_at"
  | "recorded_at"
  | "now"
  | "as_of"
  | "occurred_after"
  | "occurred_before"
  | "expires_at";
/** `T` with `Date` accepted for its time fields (sent as ISO 8601). */
export type WithDates<T> = { [K in keyof T]: K extends TimeKeys ? T[K] | Date : T[K] };
/** `T` with the keys `K` optional. */
export type Loose<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
export type Time = string | Date;

export type Page<T> = { count: number; next?: string | null; previous?: string | null; results: T[] };

export type Bank = S["BankOutput"];
export type BankCreate = Loose<S["BankCreateInputRequest"], "name" | "description" | "background">;
export type BankUpdate = S["PatchedBankUpdateInputRequest"];
export type RetainItem = WithDates<Loose<S["RetainItemInputRequest"], "source" | "subject" | "thread" | "provenance">>;
export type Retain = S["RetainOutput"];
export type RetainBatch = S["RetainBatchOutput"];
export type RecallFilters = WithDates<S["RecallFiltersInputRequest"]>;
export type RecallRequest = WithDates<Loose<S["RecallInputRequest"], "rerank" | "explain" | "render">>;
export type Recall = S["RecallOutput"];
export type RecallItem = S["RecallItemOutput"];
export type RecallProvenance = S["RecallProvenance"];
export type Reflect = S["ReflectOutput"];
export type Episode = S["EpisodeOutput"];
export type Fact = S["FactOutput"];
export type Belief = S["BeliefOutput"];
export type BeliefDetail = S["BeliefDetailOutput"];
export type MentalModel = S["MentalModelOutput"];
export type MentalModelCreate = Loose<S["MentalModelInputRequest"], "max_beliefs">;
export type ReviewItem = S["ReviewItemOutput"];
export type ErasureRequest = S["ErasureRequestOutput"];
export type ErasureRequestCreate = S["ErasureRequestInputRequest"];
export type ApiKey = S["ApiKeyOutput"];
export type ApiKeyIssued = S["ApiKeyIssued"];
export type ApiKeyCreate = WithDates<Loose<S["ApiKeyInputRequest"], "scopes">>;
export type BackgroundStatus = S["BackgroundStatusOutput"];
export type AuditEvent = S["AuditEventOutput"];
export type DefenseRescan = S["DefenseRescanOutput"];
export type ImportCounts = S["ImportCounts"];
export type AnomalyEvent = WithDates<S["AnomalyEventInputRequest"]>;
export type TriageRequest = WithDates<Loose<S["TriageInputRequest"], "budget_tokens">>;
export type TriageDecision = S["TriageDecisionOutput"];
export type Play = S["PlayOutput"];
export type PlayCreate = S["PlayInputRequest"];
export type InterventionCreate = WithDates<S["InterventionInputRequest"]>;
export type OutcomeCreate = WithDates<S["OutcomeInputRequest"]>;
export type Outcome = S["OutcomeOutput"];
export type AccountLink = S["LinkInputRequest"];
export type RecommendRequest = WithDates<Loose<S["RecommendInputRequest"], "limit">>;
export type Lesson = S["LessonInputRequest"];
export type ApiError = S["Error"];
/** An answer the schema leaves free-form (workload endpoints). */
export type JsonObject = Record<string, unknown>;
