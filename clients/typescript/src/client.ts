/**
 * `MemoryHub`: one object per server and key.
 *
 *     import { MemoryHub } from "memoryhub-client";
 *
 *     const hub = new MemoryHub({ baseUrl: "http://127.0.0.1:8000", apiKey: "mh_..." });
 *     await hub.retain("ops", ["Alert DiskLatencyHigh fired on db-01 during the backup."]);
 *     const answer = await hub.recall("ops", "is disk latency on db-01 known?", { budgetTokens: 300 });
 *
 * `baseUrl` and `apiKey` default to `MEMORYHUB_URL` and `MEMORYHUB_API_KEY` where a
 * `process.env` exists (Node, Deno, Bun).
 */

import { RetainBatchFailed, RetainBatchTimeout } from "./errors.js";
import { Portability } from "./portability.js";
import * as r from "./resources.js";
import { Transport } from "./transport.js";
import type * as T from "./types.js";

export const DEFAULT_URL = "http://127.0.0.1:8000";
export const VERSION = "0.1.0";
const TERMINAL = new Set(["done", "failed"]);

export interface MemoryHubOptions {
  /** Default: `MEMORYHUB_URL`, else http://127.0.0.1:8000. */
  baseUrl?: string;
  /** Default: `MEMORYHUB_API_KEY`. */
  apiKey?: string;
  /** Per request, in milliseconds (default 30,000). */
  timeoutMs?: number;
  /** Retries of a 429/503 or a failed connection (default 3). */
  maxRetries?: number;
  /** Backoff base in milliseconds (default 500): waits are random in [0, base × 2^attempt]. */
  backoffBaseMs?: number;
  /** The longest wait the client accepts, in milliseconds (default 60,000). */
  maxRetryWaitMs?: number;
  headers?: Record<string, string>;
  /** A `fetch` implementation (default: the global one). */
  fetch?: typeof fetch;
  /** How to wait between retries and polls (tests pass a recorder). */
  sleep?: (ms: number) => Promise<void>;
}

export interface RecallOptions extends Omit<T.RecallRequest, "query" | "budget_tokens"> {
  budgetTokens: number;
}

export interface RetainOptions {
  /** Sent as the `Idempotency-Key` header; a fresh one per call when not given. */
  idempotencyKey?: string;
  /** Queue the batch (202 with a batch to poll) instead of storing before the answer. */
  async?: boolean;
  /** With `async`: poll until the batch is done (throws `RetainBatchFailed` / `RetainBatchTimeout`). */
  wait?: boolean;
  timeoutMs?: number;
  pollIntervalMs?: number;
}

export interface WaitOptions {
  timeoutMs?: number;
  pollIntervalMs?: number;
}

function env(name: string): string | undefined {
  const processLike = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return processLike?.env?.[name];
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One retain item as JSON: a plain string is its content. */
export function retainItem(item: T.RetainItem | string): T.RetainItem {
  return typeof item === "string" ? { content: item } : item;
}

export class MemoryHub {
  readonly baseUrl: string;
  readonly banks: r.Banks;
  readonly episodes: r.Episodes;
  readonly facts: r.Facts;
  readonly beliefs: r.Beliefs;
  readonly mentalModels: r.MentalModels;
  readonly reviewItems: r.ReviewItems;
  readonly erasureRequests: r.ErasureRequests;
  readonly apiKeys: r.ApiKeys;
  readonly retainBatches: r.RetainBatches;
  readonly background: r.Background;
  readonly auditEvents: r.AuditEvents;
  readonly defenseRescans: r.DefenseRescans;
  readonly anomaly: r.Anomaly;
  readonly churn: r.Churn;
  readonly lessons: r.Lessons;
  readonly portability: Portability;
  private readonly transport: Transport;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: MemoryHubOptions = {}) {
    this.baseUrl = (options.baseUrl ?? env("MEMORYHUB_URL") ?? DEFAULT_URL).replace(/\/+$/, "");
    const apiKey = options.apiKey ?? env("MEMORYHUB_API_KEY");
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
    this.sleep = options.sleep ?? defaultSleep;
    const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      headers,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 3,
      backoffBaseMs: options.backoffBaseMs ?? 500,
      maxRetryWaitMs: options.maxRetryWaitMs ?? 60_000,
      fetch: fetchImpl,
      sleep: this.sleep,
    });
    this.banks = new r.Banks(this.transport);
    this.episodes = new r.Episodes(this.transport);
    this.facts = new r.Facts(this.transport);
    this.beliefs = new r.Beliefs(this.transport);
    this.mentalModels = new r.MentalModels(this.transport);
    this.reviewItems = new r.ReviewItems(this.transport);
    this.erasureRequests = new r.ErasureRequests(this.transport);
    this.apiKeys = new r.ApiKeys(this.transport);
    this.retainBatches = new r.RetainBatches(this.transport);
    this.background = new r.Background(this.transport);
    this.auditEvents = new r.AuditEvents(this.transport);
    this.defenseRescans = new r.DefenseRescans(this.transport);
    this.anomaly = new r.Anomaly(this.transport);
    this.churn = new r.Churn(this.transport);
    this.lessons = new r.Lessons(this.transport);
    this.portability = new Portability(this.transport);
  }

  /**
   * Store `items`; recallable when the call returns (synchronous mode).
   *
   * Every call carries an `Idempotency-Key` (a fresh one unless given), so retries never
   * store twice. `async: true` answers with a batch to poll; `wait: true` polls it.
   */
  retain(bank: string, items: Iterable<T.RetainItem | string>, options?: RetainOptions & { async?: false }): Promise<T.Retain>;
  retain(bank: string, items: Iterable<T.RetainItem | string>, options: RetainOptions & { async: true }): Promise<T.RetainBatch>;
  async retain(
    bank: string,
    items: Iterable<T.RetainItem | string>,
    options: RetainOptions = {},
  ): Promise<T.Retain | T.RetainBatch> {
    const body: Record<string, unknown> = { items: Array.from(items, retainItem) };
    if (options.async) body.async = true;
    // A key per call by default: a retry after a lost answer replays the first answer instead of writing twice.
    const key = options.idempotencyKey ?? `client-${globalThis.crypto.randomUUID()}`;
    const result = await this.transport.json<T.Retain | T.RetainBatch>({
      method: "POST",
      path: r.bankPath(bank, "retain"),
      json: body,
      headers: { "Idempotency-Key": key },
    });
    if (options.async && options.wait) {
      return this.waitForBatch(bank, result.batch_id, options);
    }
    return result;
  }

  /** Poll a queued retain batch until it is `done` (or throw when it `failed` or time runs out). */
  async waitForBatch(bank: string, batchId: number, options: WaitOptions = {}): Promise<T.RetainBatch> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const batch = await this.retainBatches.get(bank, batchId);
      if (TERMINAL.has(String(batch.status))) {
        if (batch.status === "failed") {
          throw new RetainBatchFailed(batch.error || "retain batch failed", { extra: { batch } });
        }
        return batch;
      }
      if (Date.now() >= deadline) {
        throw new RetainBatchTimeout(`batch ${batchId} is still ${batch.status} after ${Math.round(timeoutMs / 1000)}s`);
      }
      await this.sleep(options.pollIntervalMs ?? 500);
    }
  }

  /** A cited slice of memory that never exceeds `budgetTokens` (`render: "prompt"` adds a fenced rendering). */
  recall(bank: string, query: string, options: RecallOptions): Promise<T.Recall> {
    const { budgetTokens, ...rest } = options;
    return this.transport.json({
      method: "POST",
      path: r.bankPath(bank, "recall"),
      json: { query, budget_tokens: budgetTokens, ...rest },
    });
  }

  /** A cited answer from mental models, then beliefs, then recall. */
  reflect(bank: string, question: string, options: { budgetTokens: number }): Promise<T.Reflect> {
    return this.transport.json({
      method: "POST",
      path: r.bankPath(bank, "reflect"),
      json: { question, budget_tokens: options.budgetTokens },
    });
  }

  /** Every row of a list method, page after page: `for await (const b of hub.paginate((p) => hub.beliefs.list("ops", p)))`. */
  async *paginate<Row>(
    list: (page: r.PageOptions) => Promise<T.Page<Row>>,
    options: { pageSize?: number } = {},
  ): AsyncGenerator<Row> {
    const limit = options.pageSize ?? 100;
    let offset = 0;
    for (;;) {
      const page = await list({ limit, offset });
      yield* page.results;
      offset += page.results.length;
      if (!page.next || page.results.length === 0) return;
    }
  }
}
