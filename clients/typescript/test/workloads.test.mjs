// Anomaly triage and churn plays through the client, against the live server.
import assert from "node:assert/strict";
import { test } from "node:test";

import { errors } from "../dist/index.js";
import { makeHub, newBank } from "./helpers.mjs";

const hub = makeHub();
const T0 = Date.parse("2026-01-05T09:00:00Z");
const day = (n) => new Date(T0 + n * 86_400_000);

test("anomaly: three dismissals make a cited suppression that an analyst overturns", async () => {
  const bank = await newBank(hub);
  for (let n = 0; n < 3; n += 1) {
    const alert = await hub.anomaly.recordEvent(bank, {
      type: "alert", signature: "DiskIOHigh", host: "db-3", value: 90, occurred_at: day(n),
    });
    assert.equal(alert.type, "alert");
    await hub.anomaly.recordEvent(bank, {
      type: "dismissal", signature: "DiskIOHigh", host: "db-3", value: 90, reason: "backup window",
      occurred_at: new Date(day(n).getTime() + 600_000),
    });
  }
  await assert.rejects(
    hub.anomaly.recordEvent(bank, { type: "dismissal", signature: "S", host: "h", occurred_at: day(0) }),
    (error) => error instanceof errors.ValidationError && JSON.stringify(error.extra).includes("reason"),
  );
  const result = await hub.anomaly.triage(bank, { signature: "DiskIOHigh", host: "db-3", value: 90, now: day(4) });
  assert.equal(result.decision, "suppress");
  assert.equal(result.citations.length, 3);
  assert.ok(result.citations.every((citation) => citation.quote === "backup window"));

  const decisions = await hub.anomaly.listDecisions(bank, { signature: "DiskIOHigh" });
  assert.deepEqual(decisions.results.map((row) => row.id), [result.decision_id]);
  const decision = await hub.anomaly.getDecision(bank, result.decision_id);
  assert.equal(decision.decision, "suppress");
  assert.equal(decision.target, "db-3");
  await assert.rejects(hub.anomaly.getDecision(bank, 999999), errors.TriageDecisionNotFound);

  const overturned = await hub.reviewItems.overturn(bank, result.review_item_id, "this one was a real disk failure");
  assert.equal(overturned.status, "overturned");
  const again = await hub.anomaly.triage(bank, { signature: "DiskIOHigh", host: "db-3", value: 90, now: day(5) });
  assert.notEqual(again.decision, "suppress");
});

test("churn: plays, interventions, late outcomes, links, scores and recommendations", async () => {
  const bank = await newBank(hub);
  const play = await hub.churn.putPlay(bank, { name: "discount-10", horizon_days: 30, description: "10% off" });
  assert.equal(play.horizon_days, 30);
  assert.equal((await hub.churn.getPlay(bank, "discount-10")).description, "10% off");
  assert.deepEqual((await hub.churn.listPlays(bank)).results.map((row) => row.name), ["discount-10"]);

  for (let n = 0; n < 3; n += 1) {
    const recorded = await hub.churn.recordIntervention(bank, {
      account: `acct-${n}`, segment: "SMB", play: "discount-10", occurred_at: day(0),
    });
    assert.equal(recorded.created, true);
    const outcome = await hub.churn.recordOutcome(bank, {
      account: `acct-${n}`, result: n < 2 ? "retained" : "churned", occurred_at: day(20), recorded_at: day(20),
      event_id: `acct-${n}-renewal`,
    });
    assert.equal(outcome.created, true);
  }
  const replay = await hub.churn.recordOutcome(bank, {
    account: "acct-0", result: "retained", occurred_at: day(20), recorded_at: day(20), event_id: "acct-0-renewal",
  });
  assert.equal(replay.created, false);
  await assert.rejects(
    hub.churn.recordOutcome(bank, { account: "ghost", result: "churned", occurred_at: day(1), event_id: "e-ghost" }),
    errors.InterventionNotFound,
  );

  const interventions = await hub.churn.listInterventions(bank, { segment: "SMB", now: day(40) });
  assert.equal(interventions.count, 3);
  const [first] = interventions.results;
  assert.equal((await hub.churn.getIntervention(bank, first.id, { now: day(40) })).id, first.id);
  await assert.rejects(hub.churn.getIntervention(bank, 999999), errors.InterventionNotFound);
  const outcomes = await hub.churn.listOutcomes(bank, { account: "acct-2" });
  assert.deepEqual(outcomes.results.map((row) => row.result), ["churned"]);

  const link = await hub.churn.link(bank, { account: "acct-2", related_account: "acct-2-eu", relation: "subsidiary" });
  assert.equal(typeof link.id, "number");
  assert.equal((await hub.churn.score(bank, { now: day(40) })).scored, 3);
  const advice = await hub.churn.recommend(bank, { account: "acct-2-eu", segment: "SMB", now: day(41) });
  assert.ok(advice.excluded.some((row) => row.play === "discount-10"), JSON.stringify(advice));
  const fresh = await hub.churn.recommend(bank, { account: "new", segment: "SMB", now: day(41) });
  assert.deepEqual(
    fresh.recommendations.map((row) => [row.play, row.retained, row.n]),
    [["discount-10", 2, 3]],
  );

  await hub.churn.deletePlay(bank, "discount-10");
  await assert.rejects(hub.churn.getPlay(bank, "discount-10"), errors.PlayNotFound);
});
