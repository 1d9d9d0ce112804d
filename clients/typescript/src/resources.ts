/**
 * API resources: each method builds one `Call` and hands it to the transport.
 * Paths and bodies follow `/api/schema/`; the types come from `schema.ts`.
 */

import type { Call, QueryValue, Transport } from "./transport.js";
import type * as T from "./types.js";

export const seg = (value: string | number): string => encodeURIComponent(String(value));
export const bankPath = (bank: string, rest = ""): string => `/api/v1/banks/${seg(bank)}/${rest}`;

/** Limit and offset of a list page. */
export interface PageOptions {
  limit?: number;
  offset?: number;
}
type Query = Record<string, QueryValue>;

abstract class Resource {
  constructor(protected readonly transport: Transport) {}

  protected request<R>(call: Call): Promise<R> {
    return this.transport.json<R>(call);
  }
}

export class Banks extends Resource {
  list(options: PageOptions = {}): Promise<T.Page<T.Bank>> {
    return this.request({ method: "GET", path: "/api/v1/banks/", query: { ...options } });
  }

  create(slug: string, fields: Omit<T.BankCreate, "slug"> = {}): Promise<T.Bank> {
    return this.request({ method: "POST", path: "/api/v1/banks/", json: { slug, ...fields } });
  }

  get(bank: string): Promise<T.Bank> {
    return this.request({ method: "GET", path: bankPath(bank) });
  }

  update(bank: string, fields: T.BankUpdate): Promise<T.Bank> {
    return this.request({ method: "PATCH", path: bankPath(bank), json: fields });
  }

  /** Forget the whole bank; returns the erasure receipt (kinds and counts). */
  delete(bank: string): Promise<T.JsonObject> {
    return this.request({ method: "DELETE", path: bankPath(bank) });
  }
}

export class RetainBatches extends Resource {
  get(bank: string, batchId: number): Promise<T.RetainBatch> {
    return this.request({ method: "GET", path: bankPath(bank, `retain-batches/${seg(batchId)}`) });
  }
}

export interface EpisodeFilters extends PageOptions {
  source?: string;
  subject?: string;
  provenance?: string;
  occurred_after?: T.Time;
  occurred_before?: T.Time;
  recorded_after?: T.Time;
  recorded_before?: T.Time;
}

export class Episodes extends Resource {
  list(bank: string, filters: EpisodeFilters = {}): Promise<T.Page<T.Episode>> {
    return this.request({ method: "GET", path: bankPath(bank, "episodes/"), query: filters as Query });
  }

  get(bank: string, episodeId: number): Promise<T.Episode> {
    return this.request({ method: "GET", path: bankPath(bank, `episodes/${seg(episodeId)}`) });
  }

  delete(bank: string, episodeId: number): Promise<void> {
    return this.request({ method: "DELETE", path: bankPath(bank, `episodes/${seg(episodeId)}`) });
  }

  /** Release a flagged episode from quarantine (admin). */
  release(bank: string, episodeId: number): Promise<T.Episode> {
    return this.request({ method: "POST", path: bankPath(bank, `episodes/${seg(episodeId)}/release`) });
  }
}

export interface FactFilters extends PageOptions {
  subject?: string;
  predicate?: string;
  object?: string;
  episode?: number;
  extractor?: string;
  current?: boolean;
  /** Bi-temporal: true at this time ... */
  valid_at?: T.Time;
  /** ... as the bank knew it at this time. */
  known_at?: T.Time;
}

export class Facts extends Resource {
  list(bank: string, filters: FactFilters = {}): Promise<T.Page<T.Fact>> {
    return this.request({ method: "GET", path: bankPath(bank, "facts/"), query: filters as Query });
  }

  get(bank: string, factId: number): Promise<T.Fact> {
    return this.request({ method: "GET", path: bankPath(bank, `facts/${seg(factId)}`) });
  }
}

export interface BeliefFilters extends PageOptions {
  status?: string | string[];
  subject?: string;
  predicate?: string;
  object?: string;
  min_proof_count?: number;
  min_confidence?: number;
}

export class Beliefs extends Resource {
  list(bank: string, filters: BeliefFilters = {}): Promise<T.Page<T.Belief>> {
    return this.request({ method: "GET", path: bankPath(bank, "beliefs/"), query: filters as Query });
  }

  /** What the bank believed at `at`: each belief's version then (a page of plain rows). */
  asOf(bank: string, at: T.Time, options: PageOptions = {}): Promise<T.Page<T.JsonObject>> {
    return this.request({ method: "GET", path: bankPath(bank, "beliefs/"), query: { as_of: at, ...options } });
  }

  /** One belief with its evidence quotes and version history. */
  get(bank: string, beliefId: number): Promise<T.BeliefDetail> {
    return this.request({ method: "GET", path: bankPath(bank, `beliefs/${seg(beliefId)}`) });
  }
}

export class MentalModels extends Resource {
  list(bank: string, options: PageOptions = {}): Promise<T.Page<T.MentalModel>> {
    return this.request({ method: "GET", path: bankPath(bank, "mental-models/"), query: { ...options } });
  }

  create(
    bank: string,
    name: string,
    question: string,
    options: Omit<T.MentalModelCreate, "name" | "question"> = {},
  ): Promise<T.MentalModel> {
    return this.request({ method: "POST", path: bankPath(bank, "mental-models/"), json: { name, question, ...options } });
  }

  /** The stored answer: one row read, no retrieval. */
  get(bank: string, name: string): Promise<T.MentalModel> {
    return this.request({ method: "GET", path: bankPath(bank, `mental-models/${seg(name)}`) });
  }

  delete(bank: string, name: string): Promise<void> {
    return this.request({ method: "DELETE", path: bankPath(bank, `mental-models/${seg(name)}`) });
  }

  refresh(bank: string, name: string): Promise<T.MentalModel> {
    return this.request({ method: "POST", path: bankPath(bank, `mental-models/${seg(name)}/refresh`) });
  }
}

export class ReviewItems extends Resource {
  list(bank: string, filters: PageOptions & { kind?: string; status?: string } = {}): Promise<T.Page<T.ReviewItem>> {
    return this.request({ method: "GET", path: bankPath(bank, "review-items/"), query: { ...filters } });
  }

  get(bank: string, itemId: number): Promise<T.ReviewItem> {
    return this.request({ method: "GET", path: bankPath(bank, `review-items/${seg(itemId)}`) });
  }

  decide(bank: string, itemId: number, decision: string, comment?: string): Promise<T.ReviewItem> {
    const path = bankPath(bank, `review-items/${seg(itemId)}/${seg(decision)}`);
    return this.request({ method: "POST", path, json: comment === undefined ? {} : { comment } });
  }

  accept(bank: string, itemId: number, comment?: string): Promise<T.ReviewItem> {
    return this.decide(bank, itemId, "accept", comment);
  }

  reject(bank: string, itemId: number, comment?: string): Promise<T.ReviewItem> {
    return this.decide(bank, itemId, "reject", comment);
  }

  overturn(bank: string, itemId: number, comment?: string): Promise<T.ReviewItem> {
    return this.decide(bank, itemId, "overturn", comment);
  }
}

export class ErasureRequests extends Resource {
  /** Erase every episode of `subject` (in `bank`, or tenant-wide) and all that was derived from them. */
  create(subject: string, options: Omit<T.ErasureRequestCreate, "subject"> = {}): Promise<T.ErasureRequest> {
    return this.request({ method: "POST", path: "/api/v1/erasure-requests/", json: { subject, ...options } });
  }

  list(options: PageOptions & { tenant?: string } = {}): Promise<T.Page<T.ErasureRequest>> {
    return this.request({ method: "GET", path: "/api/v1/erasure-requests/", query: { ...options } });
  }

  get(requestId: number, options: { tenant?: string } = {}): Promise<T.ErasureRequest> {
    return this.request({ method: "GET", path: `/api/v1/erasure-requests/${seg(requestId)}`, query: { ...options } });
  }
}

export class ApiKeys extends Resource {
  list(options: PageOptions & { tenant?: string } = {}): Promise<T.Page<T.ApiKey>> {
    return this.request({ method: "GET", path: "/api/v1/api-keys/", query: { ...options } });
  }

  /** A new key; its secret (`key`) is shown once. */
  issue(name: string, options: Omit<T.ApiKeyCreate, "name"> = {}): Promise<T.ApiKeyIssued> {
    return this.request({ method: "POST", path: "/api/v1/api-keys/", json: { name, ...options } });
  }

  revoke(prefix: string, options: { tenant?: string } = {}): Promise<void> {
    return this.request({ method: "DELETE", path: `/api/v1/api-keys/${seg(prefix)}`, query: { ...options } });
  }
}

export class Background extends Resource {
  status(bank: string): Promise<T.BackgroundStatus> {
    return this.request({ method: "GET", path: bankPath(bank, "background") });
  }

  /** Queue extraction and consolidation for the bank now. */
  run(bank: string): Promise<T.BackgroundStatus> {
    return this.request({ method: "POST", path: bankPath(bank, "background") });
  }
}

export class AuditEvents extends Resource {
  list(bank: string, filters: PageOptions & { action?: string; since?: T.Time } = {}): Promise<T.Page<T.AuditEvent>> {
    return this.request({ method: "GET", path: bankPath(bank, "audit-events/"), query: { ...filters } });
  }
}

export class DefenseRescans extends Resource {
  list(bank: string, options: PageOptions = {}): Promise<T.Page<T.DefenseRescan>> {
    return this.request({ method: "GET", path: bankPath(bank, "defense-rescans/"), query: { ...options } });
  }

  /** Re-scan every stored episode under the bank's current Memory Defense policy (admin; runs in the background). */
  start(bank: string): Promise<T.DefenseRescan> {
    return this.request({ method: "POST", path: bankPath(bank, "defense-rescans/") });
  }
}

/** Anomaly triage: record alert events and dismissals, ask for a cited suppression decision. */
export class Anomaly extends Resource {
  /** Record one event (`alert`, `dismissal`, `incident`, `runbook_step`...): stored as an episode. */
  recordEvent(bank: string, event: T.AnomalyEvent): Promise<T.JsonObject> {
    return this.request({ method: "POST", path: bankPath(bank, "anomaly/events"), json: event });
  }

  /** Suppress, escalate or pass an alert, with the beliefs and quotes behind the decision. */
  triage(bank: string, request: T.TriageRequest): Promise<T.JsonObject> {
    return this.request({ method: "POST", path: bankPath(bank, "anomaly/triage"), json: request });
  }

  listDecisions(
    bank: string,
    filters: PageOptions & { decision?: string; signature?: string; target?: string; since?: T.Time } = {},
  ): Promise<T.Page<T.TriageDecision>> {
    return this.request({ method: "GET", path: bankPath(bank, "anomaly/decisions/"), query: { ...filters } });
  }

  getDecision(bank: string, decisionId: number): Promise<T.TriageDecision> {
    return this.request({ method: "GET", path: bankPath(bank, `anomaly/decisions/${seg(decisionId)}`) });
  }
}

/** Churn: plays, interventions, late outcomes, account links, scores and recommendations. */
export class Churn extends Resource {
  listPlays(bank: string, options: PageOptions = {}): Promise<T.Page<T.Play>> {
    return this.request({ method: "GET", path: bankPath(bank, "churn/plays/"), query: { ...options } });
  }

  /** Create a play, or update the one with this name. */
  putPlay(bank: string, play: T.PlayCreate): Promise<T.Play> {
    return this.request({ method: "POST", path: bankPath(bank, "churn/plays/"), json: play });
  }

  getPlay(bank: string, name: string): Promise<T.Play> {
    return this.request({ method: "GET", path: bankPath(bank, `churn/plays/${seg(name)}`) });
  }

  deletePlay(bank: string, name: string): Promise<void> {
    return this.request({ method: "DELETE", path: bankPath(bank, `churn/plays/${seg(name)}`) });
  }

  recordIntervention(bank: string, intervention: T.InterventionCreate): Promise<T.JsonObject> {
    return this.request({ method: "POST", path: bankPath(bank, "churn/interventions"), json: intervention });
  }

  listInterventions(
    bank: string,
    filters: PageOptions & { account?: string; play?: string; segment?: string; now?: T.Time } = {},
  ): Promise<T.Page<T.JsonObject>> {
    return this.request({ method: "GET", path: bankPath(bank, "churn/interventions"), query: { ...filters } });
  }

  getIntervention(bank: string, interventionId: number, options: { now?: T.Time } = {}): Promise<T.JsonObject> {
    const path = bankPath(bank, `churn/interventions/${seg(interventionId)}`);
    return this.request({ method: "GET", path, query: { ...options } });
  }

  /** A late outcome (renewed, churned...): `event_id` makes a replay harmless. */
  recordOutcome(bank: string, outcome: T.OutcomeCreate): Promise<T.JsonObject> {
    return this.request({ method: "POST", path: bankPath(bank, "churn/outcomes"), json: outcome, safeToRepeat: true });
  }

  listOutcomes(
    bank: string,
    filters: PageOptions & { account?: string; attribution?: string; intervention?: number } = {},
  ): Promise<T.Page<T.Outcome>> {
    return this.request({ method: "GET", path: bankPath(bank, "churn/outcomes"), query: { ...filters } });
  }

  link(bank: string, link: T.AccountLink): Promise<T.JsonObject> {
    return this.request({ method: "POST", path: bankPath(bank, "churn/links"), json: link });
  }

  /** Effectiveness of each play per segment, with sample sizes. */
  score(bank: string, options: { now?: T.Time } = {}): Promise<T.JsonObject> {
    return this.request({ method: "POST", path: bankPath(bank, "churn/score"), json: options });
  }

  recommend(bank: string, request: T.RecommendRequest): Promise<T.JsonObject> {
    return this.request({ method: "POST", path: bankPath(bank, "churn/recommend"), json: request });
  }
}

/** Gated distillation: lessons become review items; only an accepted one becomes a play. */
export class Lessons extends Resource {
  submit(bank: string, lessons: T.Lesson[], options: { session?: string } = {}): Promise<T.JsonObject> {
    return this.request({ method: "POST", path: bankPath(bank, "lessons"), json: { lessons, ...options } });
  }
}
