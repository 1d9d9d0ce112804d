// Shared set-up for the tests: the live server named by the environment, and a client that logs its routes.
//
// tests/integrations/test_typescript_client.py starts a real MemoryHub server and sets
// MEMORYHUB_URL, MEMORYHUB_API_KEY (a tenant admin key), MEMORYHUB_SEEDED_BANK (a bank whose
// three dismissals were consolidated into one belief), MEMORYHUB_LIMITED_KEY (1 request per
// minute), MEMORYHUB_ERROR_CODES (every code the server declares) and MEMORYHUB_ROUTE_LOG (a file
// where every request's method and path are appended, so the pytest side can check that every
// API route was exercised).
import { appendFileSync } from "node:fs";
import { randomUUID } from "node:crypto";

import { MemoryHub } from "../dist/index.js";

export function need(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run these tests through tests/integrations/test_typescript_client.py`);
  return value;
}

export const URL_ = need("MEMORYHUB_URL");
export const KEY = need("MEMORYHUB_API_KEY");
export const SEEDED = need("MEMORYHUB_SEEDED_BANK");

/** A fetch that appends "METHOD /path" to the route log, then sends the request. */
export function loggingFetch(inner = globalThis.fetch) {
  const log = process.env.MEMORYHUB_ROUTE_LOG;
  return async (url, init = {}) => {
    if (log) appendFileSync(log, `${init.method ?? "GET"} ${new URL(url).pathname}\n`);
    return inner(url, init);
  };
}

/** A client for the live server; waits are recorded in `hub.sleeps` instead of slept. */
export function makeHub(options = {}) {
  const sleeps = [];
  const hub = new MemoryHub({
    baseUrl: URL_,
    apiKey: KEY,
    fetch: loggingFetch(),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  hub.sleeps = sleeps;
  return hub;
}

/** A new, empty bank of the test tenant. */
export async function newBank(hub, prefix = "ts") {
  const slug = `${prefix}-${randomUUID().slice(0, 8)}`;
  await hub.banks.create(slug, { name: `Test ${slug}` });
  return slug;
}
