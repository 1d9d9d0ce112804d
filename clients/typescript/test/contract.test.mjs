// The client cannot drift from the API's error codes: one class per code the server declares.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ERROR_CLASSES, MemoryHubError, errors } from "../dist/index.js";
import { need } from "./helpers.mjs";

test("every error code the server declares has its own error class", () => {
  const codes = JSON.parse(need("MEMORYHUB_ERROR_CODES"));
  assert.ok(codes.length >= 30, `only ${codes.length} codes came from the server`);
  const missing = codes.filter((code) => !(code in ERROR_CLASSES)).sort();
  assert.deepEqual(missing, [], `add a class per code to src/errors.ts: ${missing}`);
  for (const [code, cls] of Object.entries(ERROR_CLASSES)) {
    assert.equal(cls.code, code);
    assert.ok(cls.prototype instanceof MemoryHubError, code);
  }
  assert.equal(ERROR_CLASSES.bank_not_found, errors.BankNotFound);
  assert.ok(errors.BankNotFound.prototype instanceof errors.NotFoundError);
  assert.ok(errors.RateLimited.prototype instanceof errors.UnavailableError);
});

test("an error is built from the answer: class by code, else by status", () => {
  const headers = new Headers({ "Retry-After": "7" });
  const limited = errors.errorFromResponse(429, headers, JSON.stringify({ code: "rate_limited", detail: "slow down", extra: {} }));
  assert.ok(limited instanceof errors.RateLimited);
  assert.equal(limited.retryAfter, 7);
  assert.equal(limited.message, "429 rate_limited: slow down");
  const newer = errors.errorFromResponse(409, new Headers(), JSON.stringify({ code: "brand_new_code", detail: "x", extra: {} }));
  assert.ok(newer instanceof errors.ConflictError);
  assert.equal(newer.code, "brand_new_code");
});
