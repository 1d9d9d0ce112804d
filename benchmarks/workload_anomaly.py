"""Anomaly simulator for ``make eval-workloads``: benign recurring alerts and genuine look-alikes, replayed day by day.

Every alert names a host and a service. The stream (identical for every configuration):

- six benign patterns that recur daily (DiskIOHigh on db-1..3/postgres, CpuSpike on web-1..3/nginx);
- genuine look-alikes on **other hosts** (db-9, web-9), same signature and value band;
- genuine look-alikes on the **same host, another service** (DiskIOHigh on db-2/kafka from day 30);
- on day 70 an analyst **contests** DiskIOHigh on db-3/postgres ("disk 2 is degrading …"), and
  from then to day 95 genuine look-alikes fire on the **same host and service inside the same
  value band**, interleaved with the benign backups; after the disk is replaced only backups remain;
- a benign pattern that turns real on day 100 (its values rise), and one that is silent from day
  20 to 125 and comes back real.

Analysts investigate what is not suppressed and record feedback for 90% of it in their own
words (varied reasons with ticket numbers); every suppression is reviewed — confirmed with a
comment 70% of the time, overturned with a comment when the alert was genuine. The simulator
keeps every text an analyst wrote, and checks each citation of every triage decision against
it: valid when the quote is an exact substring of what that analyst wrote for that episode.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import UTC, datetime, timedelta

START = datetime(2026, 1, 1, tzinfo=UTC)
BENIGN_REASONS = [
    "nightly backup saturates the disk (ticket OPS-{n})",
    "expected: pg_dump runs at this hour, see OPS-{n}",
    "known batch load from the reporting job; closing as OPS-{n}",
    "same as yesterday, vacuum on the orders table: OPS-{n}",
    "traffic spike from the marketing mail-out, harmless — OPS-{n}",
]
GENUINE_REASONS = [
    "real outage: writes stalled for 6 minutes (INC-{n})",
    "customer-facing latency, paged on-call, INC-{n}",
    "not the backup — the disk was failing; INC-{n}",
]
CONFIRM_COMMENTS = ["agreed, backup window again (OPS-{n})", "checked the graphs: routine load, OPS-{n}"]
CONTRADICTIONS = ("incident", "contest", "overturn")


def pattern_of(key: str, host: str, service: str) -> tuple[str, str]:
    return {"host": host, "service": service}.get(key, f"{host}/{service}"), key


def stream(rng: random.Random, day: int) -> list[tuple[str, str, str, bool, float, str]]:
    """Today's alerts: (signature, host, service, genuine, value, scenario)."""
    firing = []
    for host in ("db-1", "db-2", "db-3"):
        if rng.random() < 0.6:
            firing.append(("DiskIOHigh", host, "postgres", False, rng.gauss(80, 4), "benign"))
    for host in ("web-1", "web-2", "web-3"):
        if rng.random() < 0.6:
            firing.append(("CpuSpike", host, "nginx", False, rng.gauss(80, 4), "benign"))
    for signature, host, service in (("DiskIOHigh", "db-9", "postgres"), ("CpuSpike", "web-9", "nginx")):
        if rng.random() < 0.08:
            firing.append((signature, host, service, True, rng.gauss(80, 4), "other-host"))
    if day >= 30 and rng.random() < 0.10:
        firing.append(("DiskIOHigh", "db-2", "kafka", True, rng.gauss(80, 4), "same-host-other-service"))
    if 70 <= day < 95 and rng.random() < 0.35:
        firing.append(("DiskIOHigh", "db-3", "postgres", True, rng.gauss(80, 4), "same-host-after-contest"))
    if rng.random() < 0.6:
        real = day >= 100
        firing.append(
            ("QueueBacklog", "mq-1", "rabbitmq", real, rng.gauss(150, 8) if real else rng.gauss(80, 4), "drift")
        )
    if day < 20 and rng.random() < 0.7:
        firing.append(("MemPressure", "cache-1", "redis", False, rng.gauss(80, 4), "benign"))
    if day >= 125 and rng.random() < 0.3:
        firing.append(("MemPressure", "cache-1", "redis", True, rng.gauss(81, 4), "returns-real"))
    return firing


def run(label: str, *, days: int, policy: dict, seed: int = 11) -> dict:
    from banks.models import Bank, Tenant
    from banks.policy import bank_policy
    from beliefs.models import Episode
    from memoryhub.tenancy import tenant_scope
    from reviews.services.decisions import review_item_decide
    from workloads.anomaly import anomaly_event_record, triage
    from workloads.models import TriageDecision

    rng = random.Random(seed)  # the alert stream: identical for every configuration
    analyst = random.Random(seed + 1)  # feedback, wording and review comments
    tenant = Tenant.objects.create(slug=f"anomaly-{label}", name=label)
    bank = Bank.objects.create(tenant=tenant, slug="alerts", name="alerts", policy=policy)
    key = bank_policy(bank).anomaly_key
    counts = defaultdict(int)
    wrongly = defaultdict(int)
    written: dict[int, str] = {}  # episode id -> the text the analyst wrote
    review_texts: dict[int, str] = {}  # review item id -> the comment the reviewer wrote
    citations: list[dict] = []
    verdicts: dict[tuple, list[tuple[datetime, str]]] = defaultdict(list)  # pattern -> (time, kind) the sim knows

    def say(kind: str, signature: str, host: str, service: str, value, at: datetime, text: str) -> None:
        event = {"type": kind, "signature": signature, "host": host, "service": service, "reason": text}
        if value is not None:
            event["value"] = value
        episode_id = anomaly_event_record(bank=bank, event=event, occurred_at=at, fold_now=True)
        written[episode_id] = text
        verdicts[(signature, pattern_of(key, host, service)[0])].append((at, kind))

    with tenant_scope(tenant.pk):
        for day in range(days):
            firing = stream(rng, day)
            hours = [rng.uniform(0, 20) for _ in firing]
            if day == 70:
                at = START + timedelta(days=70)
                text = "disk 2 on db-3 is degrading; DiskIOHigh there is not the backup any more (INC-7001)"
                say("contest", "DiskIOHigh", "db-3", "postgres", None, at, text)
            for (signature, host, service, genuine, value, scenario), hour in sorted(
                zip(firing, hours, strict=True), key=lambda item: item[1]
            ):
                at = START + timedelta(days=day, hours=hour)
                value = round(value, 1)
                alert = {"type": "alert", "signature": signature, "host": host, "service": service, "value": value}
                anomaly_event_record(bank=bank, event=alert, occurred_at=at)
                now = at + timedelta(minutes=1)
                result = triage(bank=bank, signature=signature, host=host, service=service, value=value, now=now)
                citations.extend(result.citations + result.contradictions)
                counts["alerts"] += 1
                counts["genuine" if genuine else "benign"] += 1
                target = pattern_of(key, host, service)[0]
                if result.decision != "suppress":
                    counts["investigated"] += 1
                    if analyst.random() < 0.9:  # the analyst investigates and records what it was
                        kind = "incident" if genuine else "dismissal"
                        text = analyst.choice(GENUINE_REASONS if genuine else BENIGN_REASONS)
                        say(kind, signature, host, service, value, at + timedelta(minutes=30), text.format(n=day * 97))
                    continue
                counts["suppressed"] += 1
                counts["suppressed_genuine" if genuine else "suppressed_benign"] += 1
                if genuine:
                    wrongly[scenario] += 1
                latest = [kind for t, kind in verdicts[(signature, target)] if t <= now]
                counts["suppressed_after_contradiction"] += bool(latest) and latest[-1] in CONTRADICTIONS
                if not result.review_item_id:
                    continue
                if genuine:
                    decision, comment = "overturn", f"this one was real, see INC-{day * 89}: writes failed"
                elif analyst.random() < 0.7:
                    decision, comment = "accept", analyst.choice(CONFIRM_COMMENTS).format(n=day * 13)
                else:
                    decision, comment = "accept", ""
                review_item_decide(
                    bank=bank, item_id=result.review_item_id, decision=decision, actor="sim-reviewer", comment=comment
                )
                counts["reviewed"] += 1
                if comment:
                    review_texts[result.review_item_id] = comment
                    kind = "overturn" if decision == "overturn" else "dismissal"
                    verdicts[(signature, target)].append((now, kind))
        for episode in Episode.objects.filter(bank=bank, metadata__has_key="review_item"):
            text = review_texts.get(int(episode.metadata["review_item"]))
            if text is not None:
                written[episode.pk] = text
        contents = dict(
            Episode.objects.filter(bank=bank, pk__in={c["episode_id"] for c in citations}).values_list("pk", "content")
        )
        valid = sum(_valid(c, written, contents) for c in citations)
        not_active = (
            TriageDecision.objects.filter(bank=bank, decision="suppress").exclude(belief_status="active").count()
        )
    suppressed = counts["suppressed"]
    return {
        "label": label,
        "policy": policy,
        "alerts": counts["alerts"],
        "benign_alerts": counts["benign"],
        "genuine_alerts": counts["genuine"],
        "suppressed": suppressed,
        "suppression_precision": round(counts["suppressed_benign"] / suppressed, 4) if suppressed else None,
        "benign_suppressed_share": round(counts["suppressed_benign"] / counts["benign"], 4),
        "incidents_wrongly_suppressed": counts["suppressed_genuine"],
        "wrongly_suppressed_by_scenario": dict(wrongly),
        "suppressions_of_contested_beliefs": not_active,
        "suppressions_after_a_contradiction": counts["suppressed_after_contradiction"],
        "investigations": counts["investigated"],
        "reviews": counts["reviewed"],
        "citations": len(citations),
        "citations_valid": valid,
        "citation_validity": round(valid / len(citations), 4) if citations else None,
    }


def _valid(citation: dict, written: dict[int, str], contents: dict[int, str]) -> bool:
    """The quote is a non-empty, exact substring of what the analyst wrote, at the span it claims."""
    quote, text = citation["quote"], written.get(citation["episode_id"])
    content = contents.get(citation["episode_id"], "")
    return (
        bool(quote)
        and text is not None
        and quote in text
        and content[citation["quote_start"] : citation["quote_end"]] == quote
    )
