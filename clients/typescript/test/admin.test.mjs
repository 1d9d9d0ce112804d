// Banks, keys, review items, erasure, audit events and Memory Defense re-scans against the live server.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";

import { errors } from "../dist/index.js";
import { makeHub, newBank } from "./helpers.mjs";

const hub = makeHub();

test("banks: create, list, update, a taken slug, delete with a receipt", async () => {
  const slug = `support-${randomUUID().slice(0, 6)}`;
  const bank = await hub.banks.create(slug, { name: "Support desk", policy: { disposition: { skepticism: 0.5 } } });
  assert.equal(bank.slug, slug);
  assert.equal(bank.name, "Support desk");
  assert.ok((await hub.banks.list({ limit: 100 })).results.some((row) => row.slug === slug));
  assert.equal((await hub.banks.update(slug, { description: "tickets" })).description, "tickets");
  assert.equal((await hub.banks.get(slug)).description, "tickets");
  await assert.rejects(hub.banks.create(slug), errors.BankSlugTaken);
  await assert.rejects(hub.banks.update(slug, { policy: { defense: { pii: "nonsense" } } }), errors.InvalidPolicy);
  await hub.retain(slug, ["one ticket"]);
  const receipt = await hub.banks.delete(slug);
  assert.equal(receipt.removed.episodes, 1);
  await assert.rejects(hub.banks.get(slug), errors.BankNotFound);
});

test("api keys: a bank-scoped reader is refused writes and other banks, then revoked", async () => {
  const bank = await newBank(hub);
  const issued = await hub.apiKeys.issue("reader", { bank, scopes: ["read"], rate_limit_per_minute: 100 });
  assert.match(issued.key, /^mh_/);
  assert.equal(issued.bank, bank);
  assert.deepEqual(issued.scopes, ["read"]);
  const reader = makeHub({ apiKey: issued.key });
  assert.equal((await reader.banks.get(bank)).slug, bank);
  await assert.rejects(reader.retain(bank, ["not allowed"]), (error) => {
    assert.ok(error instanceof errors.PermissionDenied && error instanceof errors.ForbiddenError);
    assert.equal(error.status, 403);
    return true;
  });
  const other = await newBank(hub);
  await assert.rejects(reader.banks.get(other), errors.BankNotFound);
  assert.ok((await hub.apiKeys.list({ limit: 200 })).results.some((key) => key.prefix === issued.prefix));
  await hub.apiKeys.revoke(issued.prefix);
  await assert.rejects(reader.banks.get(bank), errors.AuthenticationFailed);
  await assert.rejects(hub.apiKeys.revoke("mh_nope"), errors.ApiKeyNotFound);
});

test("review items: lessons wait for review, accept once, reject needs a reason", async () => {
  const bank = await newBank(hub);
  await assert.rejects(
    hub.lessons.submit(bank, [{ text: "Always call before discounting" }]),
    errors.LessonWithoutEvidence,
  );
  const submitted = await hub.lessons.submit(
    bank,
    [
      { text: "Exec reviews save mid-market accounts", play: "exec-review", segment: "Mid-Market" },
      { text: "Discounts do not save SMB accounts", play: "discount-10", segment: "SMB" },
    ],
    { session: "s-1" },
  );
  const [first, second] = submitted.review_items.map((item) => item.id);
  const pending = await hub.reviewItems.list(bank, { status: "pending", kind: "distillation" });
  assert.deepEqual(pending.results.map((item) => item.id).sort(), [first, second].sort());
  const accepted = await hub.reviewItems.accept(bank, first, "agreed");
  assert.equal(accepted.status, "accepted");
  assert.equal((await hub.reviewItems.get(bank, first)).comment, "agreed");
  await assert.rejects(hub.reviewItems.reject(bank, first, "no"), errors.ReviewItemAlreadyDecided);
  await assert.rejects(hub.reviewItems.reject(bank, second), errors.ReviewDecisionInvalid);
  assert.equal((await hub.reviewItems.decide(bank, second, "reject", "not enough data")).status, "rejected");
  await assert.rejects(hub.reviewItems.get(bank, 999999), errors.ReviewItemNotFound);
  const audit = await hub.auditEvents.list(bank, { limit: 50 });
  assert.ok(audit.results.some((event) => event.action.includes("review")), JSON.stringify(audit.results));
});

test("erasure: a subject's episodes are removed and the request is readable", async () => {
  const bank = await newBank(hub);
  await hub.retain(bank, [
    { content: "Ticket from Dana about billing", subject: "user:dana" },
    { content: "Ticket from Eve about login", subject: "user:eve" },
  ]);
  const erasure = await hub.erasureRequests.create("user:dana", { bank });
  assert.equal(erasure.bank, bank);
  assert.equal(erasure.scope, "bank");
  assert.equal((await hub.erasureRequests.get(erasure.id)).id, erasure.id);
  assert.ok((await hub.erasureRequests.list({ limit: 100 })).results.some((row) => row.id === erasure.id));
  const left = await hub.episodes.list(bank);
  assert.deepEqual(left.results.map((episode) => episode.subject), ["user:eve"]);
  await assert.rejects(hub.erasureRequests.get(999999), errors.ErasureRequestNotFound);
});

test("Memory Defense: a re-scan is started and listed", async () => {
  const bank = await newBank(hub);
  await hub.retain(bank, ["Contact dana@example.com about the renewal"]);
  const started = await hub.defenseRescans.start(bank);
  assert.ok(["pending", "running", "done"].includes(started.status), JSON.stringify(started));
  const listed = await hub.defenseRescans.list(bank);
  assert.equal(listed.count, 1);
  assert.equal(listed.results[0].total, 1);
});
