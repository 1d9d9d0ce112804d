// Export and import through the client, against the live server.
import assert from "node:assert/strict";
import { test } from "node:test";

import { chunks, errors } from "../dist/index.js";
import { SEEDED, makeHub, newBank } from "./helpers.mjs";

const hub = makeHub();

test("a bank exported as JSON lines imports into another bank in batches, once", async () => {
  const lines = [];
  for await (const line of hub.portability.exportLines(SEEDED)) lines.push(line);
  const header = JSON.parse(lines[0]);
  assert.equal(header.type, "header");
  const types = lines.slice(1).map((line) => JSON.parse(line).type);
  assert.equal(types.filter((type) => type === "episode").length, 3);
  assert.ok(types.includes("belief") && types.includes("evidence"));
  assert.ok(!lines.some((line) => /"(id|episode_id|belief_id)":/.test(line)), "no database ids travel");

  const copy = await newBank(hub, "copy");
  const progress = [];
  const totals = await hub.portability.importLines(copy, lines, {
    batchLines: 4,
    trustFile: true, // an admin moving a bank it exported: beliefs come as they are
    onProgress: (done) => progress.push(done),
  });
  assert.equal(totals.trusted, true);
  assert.equal(progress.at(-1), lines.length);
  assert.equal(progress.length, Math.ceil((lines.length - 1) / 4));
  assert.equal(totals.batches, progress.length);
  assert.equal(totals.created.episode, 3);
  assert.equal(totals.created.belief, 1);
  const beliefs = await hub.beliefs.list(copy);
  assert.equal(beliefs.results[0].proof_count, 3);

  const again = await hub.portability.importText(copy, `${lines.join("\n")}\n`, { batchLines: 50, trustFile: true });
  assert.deepEqual(again.created, {});
  assert.equal(again.duplicates.episode, 3);

  const untrusted = await newBank(hub, "untrusted");
  const held = await hub.portability.importLines(untrusted, lines, { batchLines: 50 });
  assert.equal(held.trusted, false);
  assert.equal(held.created.belief, undefined);
  assert.equal(held.held_back.belief, 1); // derived again from the episodes by the workers

  const lean = [];
  for await (const line of hub.portability.exportLines(SEEDED, { embeddings: false })) lean.push(line);
  assert.equal(lean.length, lines.length);
  assert.ok(!lean.some((line) => line.includes('"embedding": "')), "embeddings=false leaves vectors out");
});

test("a bad line names its line in the input and stores nothing of its batch", async () => {
  const bank = await newBank(hub);
  const lines = Array.from({ length: 10 }, (_, n) => ({ content: `note ${n + 1}`, occurred_at: "2026-03-01T10:00:00Z" }));
  lines[6] = { content: "note 7", occurred_at: "yesterday" };
  await assert.rejects(hub.portability.importLines(bank, lines, { format: "jsonl", batchLines: 5 }), (error) => {
    assert.ok(error instanceof errors.ImportLineInvalid);
    assert.equal(error.extra.line, 7);
    assert.deepEqual(error.extra.batch, { first_line: 6, last_line: 10 });
    return true;
  });
  assert.equal((await hub.episodes.list(bank)).count, 5);
  lines[6] = { content: "note 7", occurred_at: "2026-03-01T10:00:00Z" };
  const fixed = await hub.portability.importLines(bank, lines, { format: "jsonl", batchLines: 5 });
  assert.deepEqual(fixed.created, { episode: 5 });
  assert.deepEqual(fixed.duplicates, { episode: 5 });
  await assert.rejects(hub.portability.importLines(bank, ["{}"], { format: "csv" }), errors.ImportFormatUnknown);
});

test("a mem0 document imports as episodes once", async () => {
  const bank = await newBank(hub);
  const document = JSON.stringify({
    results: [
      { id: "m-1", memory: "Prefers vegetarian food", user_id: "alex", created_at: "2025-05-01T10:00:00Z" },
      { id: "m-2", memory: "Works at TechCorp as a senior engineer", user_id: "alex", run_id: "r-9" },
    ],
  });
  const first = await hub.portability.importText(bank, document, { format: "mem0" });
  const second = await hub.portability.importText(bank, document, { format: "mem0" });
  assert.deepEqual(first.created, { episode: 2 });
  assert.deepEqual(second.duplicates, { episode: 2 });
  const answer = await hub.recall(bank, "what food does alex like?", { budgetTokens: 50 });
  assert.equal(answer.items[0].text, "Prefers vegetarian food");
  assert.equal(answer.items[0].provenance.subject, "alex");
});

test("chunks repeat an export's header and keep the input's line numbers", async () => {
  const header = JSON.stringify({ type: "header", format: "memoryhub" });
  const pieces = [];
  for await (const piece of chunks([header, "a", "b", "c"], 2, "memoryhub")) pieces.push(piece);
  assert.deepEqual(pieces, [
    { lineOffset: 0, body: `${header}\na\nb\n`, lineCount: 3 },
    { lineOffset: 2, body: `${header}\nc\n`, lineCount: 1 },
  ]);
});
