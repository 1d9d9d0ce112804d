/**
 * Sending one API call, with retries (the same policy as the Python client).
 *
 * - 429 and 503 are retried up to `maxRetries` times. The wait is the server's
 *   `Retry-After` when it sends one; a `Retry-After` longer than `maxRetryWaitMs` is not
 *   shortened (that would only earn another 429): the error is thrown at once. Without
 *   the header the wait is exponential backoff with full jitter
 *   (`backoffBaseMs × 2^attempt`, capped at `maxRetryWaitMs`).
 * - Connection failures before the request reached the server are retried for every
 *   call; a broken connection or a timeout only for calls that are safe to repeat
 *   (reads, deletes, and writes carrying an `Idempotency-Key`).
 * - Any other error status throws the class registered for its `code`.
 */

import { MemoryHubError, TransportError, errorFromResponse, parseRetryAfter } from "./errors.js";

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503]);
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "DELETE"]);
/** Error codes of Node's fetch (undici) that mean the request never reached the server. */
const CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

export type QueryValue = string | number | boolean | Date | null | undefined | readonly (string | number)[];

export interface Call {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, QueryValue>;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
  /** The server makes repeating this call harmless (e.g. imports match records by natural keys). */
  safeToRepeat?: boolean;
}

export function isRepeatable(call: Call): boolean {
  return Boolean(call.safeToRepeat) || SAFE_METHODS.has(call.method) || hasHeader(call.headers, "Idempotency-Key");
}

function hasHeader(headers: Record<string, string> | undefined, name: string): boolean {
  const wanted = name.toLowerCase();
  return Object.keys(headers ?? {}).some((key) => key.toLowerCase() === wanted);
}

export interface RetryOptions {
  maxRetries: number;
  backoffBaseMs: number;
  maxRetryWaitMs: number;
}

/** Milliseconds to wait before retry number `attempt + 1`; undefined when it should not be retried. */
export function retryDelayMs(policy: RetryOptions, attempt: number, response?: Response): number | undefined {
  if (attempt >= policy.maxRetries) return undefined;
  if (response !== undefined) {
    const advised = parseRetryAfter(response.headers.get("Retry-After"));
    if (advised !== undefined) {
      const ms = advised * 1000;
      return ms <= policy.maxRetryWaitMs ? ms : undefined;
    }
  }
  return Math.random() * Math.min(policy.maxRetryWaitMs, policy.backoffBaseMs * 2 ** attempt);
}

export interface TransportOptions extends RetryOptions {
  baseUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
}

function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const entry of value) params.append(key, String(entry));
    } else if (value instanceof Date) {
      params.append(key, value.toISOString());
    } else {
      params.append(key, String(value));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = errorCode(error);
    return `${error.name}: ${error.message}${code ? ` (${code})` : ""}`;
  }
  return String(error);
}

export class Transport {
  constructor(readonly options: TransportOptions) {}

  url(call: Call): string {
    return `${this.options.baseUrl}${call.path}${queryString(call.query)}`;
  }

  private init(call: Call): RequestInit {
    const headers: Record<string, string> = { Accept: "application/json", ...this.options.headers, ...call.headers };
    let body: string | undefined;
    if (call.body !== undefined) {
      body = call.body;
    } else if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      headers["Content-Type"] = "application/json";
    }
    return { method: call.method, headers, body, signal: AbortSignal.timeout(this.options.timeoutMs) };
  }

  /** Send `call` (with retries) and return the successful `Response`; error answers throw. */
  async send(call: Call): Promise<Response> {
    for (let attempt = 0; ; attempt += 1) {
      let response: Response;
      try {
        response = await this.options.fetch(this.url(call), this.init(call));
      } catch (error) {
        const connectFailed = CONNECT_CODES.has(errorCode(error) ?? "");
        const wait = connectFailed || isRepeatable(call) ? retryDelayMs(this.options, attempt) : undefined;
        if (wait === undefined) throw new TransportError(describe(error), { cause: error });
        await this.options.sleep(wait);
        continue;
      }
      if (response.ok) return response;
      if (RETRY_STATUSES.has(response.status)) {
        const wait = retryDelayMs(this.options, attempt, response);
        if (wait !== undefined) {
          await response.body?.cancel();
          await this.options.sleep(wait);
          continue;
        }
      }
      throw errorFromResponse(response.status, response.headers, await response.text(), response.statusText);
    }
  }

  /** The answer's JSON (undefined for 204 or an empty body). */
  async json<T>(call: Call): Promise<T> {
    const response = await this.send(call);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** The answer's lines as they arrive (no retries once bytes have arrived). */
  async *lines(call: Call): AsyncGenerator<string> {
    const response = await this.send(call);
    if (!response.body) return;
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    let pending = "";
    let finished = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          finished = true;
          break;
        }
        pending += decoder.decode(value, { stream: true });
        let newline = pending.indexOf("\n");
        while (newline >= 0) {
          yield pending.slice(0, newline).replace(/\r$/, "");
          pending = pending.slice(newline + 1);
          newline = pending.indexOf("\n");
        }
      }
      pending += decoder.decode();
      if (pending) yield pending;
    } finally {
      if (!finished) await reader.cancel();
      reader.releaseLock();
    }
  }
}

export { MemoryHubError };
