// The retry policy: a real 429 from the service's rate limiter, and scripted 503s and broken connections.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";

import { MemoryHub, errors, isRepeatable, retryDelayMs } from "../dist/index.js";
import { SEEDED, makeHub, need } from "./helpers.mjs";

test("rate-limited calls wait as long as Retry-After says, then throw RateLimited", async () => {
  const hub = makeHub({ apiKey: need("MEMORYHUB_LIMITED_KEY"), maxRetries: 2 });
  assert.equal((await hub.banks.get(SEEDED)).slug, SEEDED);
  await assert.rejects(hub.banks.get(SEEDED), (error) => {
    assert.ok(error instanceof errors.RateLimited && error instanceof errors.UnavailableError);
    assert.equal(error.status, 429);
    assert.ok(error.retryAfter >= 1 && error.retryAfter <= 60, String(error.retryAfter));
    // Two retries, each waiting what the server asked (recorded, not slept: the window does not move).
    assert.equal(hub.sleeps.length, 2);
    assert.ok(hub.sleeps.every((ms) => Math.abs(ms / 1000 - error.retryAfter) <= 1), String(hub.sleeps));
    return true;
  });
  const impatient = makeHub({ apiKey: need("MEMORYHUB_LIMITED_KEY"), maxRetries: 5, maxRetryWaitMs: 500 });
  await assert.rejects(impatient.banks.get(SEEDED), errors.RateLimited);
  assert.deepEqual(impatient.sleeps, [], "a Retry-After longer than the client will wait fails at once");
});

const BANK = { slug: "ops", name: "Ops", tenant: "t", description: "", background: "", policy: {},
  created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" };

/** A local HTTP server answering from a script: [status, body, headers] or "drop" (close the socket). */
async function scripted(steps) {
  const seen = [];
  const server = createServer((request, response) => {
    const step = steps[Math.min(seen.length, steps.length - 1)];
    seen.push(`${request.method} ${request.url} ${request.headers["idempotency-key"] ?? ""}`.trim());
    request.resume();
    if (step === "drop") {
      request.socket.destroy();
      return;
    }
    const [status, body, headers = {}] = step;
    response.writeHead(status, { "Content-Type": "application/json", ...headers });
    response.end(typeof body === "string" ? body : JSON.stringify(body));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const waits = [];
  const hub = new MemoryHub({
    baseUrl: url, apiKey: "mh_test", backoffBaseMs: 1000, sleep: async (ms) => void waits.push(ms),
  });
  return { hub, seen, waits, close: () => new Promise((resolve) => server.close(resolve)) };
}

const unavailable = [503, { code: "embedding_unavailable", detail: "loading", extra: {} }];

test("503 is retried with exponential backoff and full jitter", async () => {
  const s = await scripted([unavailable, unavailable, [200, BANK]]);
  try {
    assert.equal((await s.hub.banks.get("ops")).slug, "ops");
    assert.equal(s.seen.length, 3);
    assert.ok(s.waits[0] >= 0 && s.waits[0] <= 1000 && s.waits[1] >= 0 && s.waits[1] <= 2000, String(s.waits));
  } finally {
    await s.close();
  }
});

test("a 503 that persists throws the code's class after max retries", async () => {
  const s = await scripted([unavailable]);
  try {
    await assert.rejects(s.hub.banks.get("ops"), errors.EmbeddingUnavailable);
    assert.equal(s.seen.length, 4);
    assert.equal(s.waits.length, 3);
  } finally {
    await s.close();
  }
});

test("a 503 with Retry-After waits exactly that; other errors are never retried", async () => {
  const s = await scripted([
    [503, { code: "database_unavailable", detail: "down", extra: {} }, { "Retry-After": "2" }],
    [200, BANK],
    [400, { code: "validation_error", detail: "bad", extra: { fields: {} } }],
  ]);
  try {
    await s.hub.banks.get("ops");
    assert.deepEqual(s.waits, [2000]);
    await assert.rejects(s.hub.banks.get("ops"), errors.ValidationError);
    assert.equal(s.seen.length, 3);
  } finally {
    await s.close();
  }
});

test("a broken connection is retried only when repeating the call is safe", async () => {
  const s = await scripted(["drop", [200, BANK], "drop", "drop"]);
  try {
    assert.equal((await s.hub.banks.get("ops")).slug, "ops"); // a read: retried
    await assert.rejects(s.hub.banks.create("x"), errors.TransportError); // a create without a key: not retried
    assert.equal(s.seen.length, 3);
  } finally {
    await s.close();
  }
  const t = await scripted(["drop", [200, { batch_id: 1, created: 1, duplicates: 0, replayed: true, items: [] }]]);
  try {
    const retained = await t.hub.retain("ops", ["note"]);
    assert.equal(retained.replayed, true);
    const [first, second] = t.seen.map((line) => line.split(" ")[2]);
    assert.match(first, /^client-/);
    assert.equal(first, second, "the retry carries the same Idempotency-Key");
  } finally {
    await t.close();
  }
});

test("an unreachable server is retried, then a TransportError; a non-JSON error throws by status", async () => {
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const { port } = closed.address();
  await new Promise((resolve) => closed.close(resolve)); // nothing listens there any more
  const waits = [];
  const hub = new MemoryHub({
    baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2, sleep: async (ms) => void waits.push(ms),
  });
  await assert.rejects(hub.banks.create("x"), (error) => {
    assert.ok(error instanceof errors.TransportError);
    assert.match(error.message, /ECONNREFUSED/);
    return true;
  });
  assert.equal(waits.length, 2, "a connection that never opened is retried even for a create");
  const s = await scripted([[502, "<html>Bad gateway</html>"]]);
  try {
    await assert.rejects(s.hub.banks.get("ops"), (error) => {
      assert.ok(error instanceof errors.ServerError);
      assert.equal(error.code, "http_502");
      assert.equal(error.detail, "<html>Bad gateway</html>");
      return true;
    });
  } finally {
    await s.close();
  }
});

test("the policy's pieces: repeatable calls and the backoff cap", () => {
  assert.equal(isRepeatable({ method: "GET", path: "/" }), true);
  assert.equal(isRepeatable({ method: "DELETE", path: "/" }), true);
  assert.equal(isRepeatable({ method: "POST", path: "/" }), false);
  assert.equal(isRepeatable({ method: "POST", path: "/", headers: { "idempotency-key": "k" } }), true);
  assert.equal(isRepeatable({ method: "POST", path: "/", safeToRepeat: true }), true);
  const policy = { maxRetries: 10, backoffBaseMs: 500, maxRetryWaitMs: 3000 };
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const wait = retryDelayMs(policy, attempt);
    assert.ok(wait >= 0 && wait <= Math.min(3000, 500 * 2 ** attempt));
  }
  assert.equal(retryDelayMs(policy, 10), undefined);
  const dated = new Response(null, { headers: { "Retry-After": new Date(Date.now() + 2000).toUTCString() } });
  const fromDate = retryDelayMs(policy, 0, dated);
  assert.ok(fromDate > 0 && fromDate <= 2000, String(fromDate));
});
