"""Consolidation on a synthetic alert stream: compression, tokens per answer, throughput, citation integrity.

5,000 alerts over 40 signatures on 2-4 hosts each, across 60 days. 25 signatures are
benign and recurring (analysts dismiss some of their alerts, with a reason); 15 are
genuine (some of their alerts become confirmed incidents). Everything goes through
retain, then extraction and consolidation run to completion as a worker would.

Usage: python bench_consolidation.py [--alerts 5000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import defaultdict
from datetime import UTC, datetime, timedelta

from common import Timer, machine, rss_mb, setup_django, write_result

REASONS = ["nightly backup job", "weekly batch import", "load test by QA", "log rotation", "cache warm-up"]


def signatures(count: int) -> list[str]:
    stems = ["Disk", "Cpu", "Mem", "Net", "Queue", "Replica", "Cert", "Pod", "Latency", "Error"]
    kinds = ["High", "Spike", "Saturation", "Lag"]
    return [f"{stems[i % 10]}{kinds[(i // 10) % 4]}{i:02d}" for i in range(count)]


def build_stream(rng: random.Random, alerts: int, start: datetime):
    from beliefs.services.retain import RetainItem

    names = signatures(40)
    benign = set(names[:25])
    hosts = {
        sig: rng.sample([f"{k}-{n}" for k in ("db", "web", "cache", "api") for n in range(1, 9)], rng.randint(2, 4))
        for sig in names
    }
    weights = [6 if sig in benign else 2 for sig in names]
    items, truth = [], defaultdict(lambda: {"alerts": 0, "dismissals": 0, "incidents": 0})
    for n in range(alerts):
        sig = rng.choices(names, weights)[0]
        host = rng.choice(hosts[sig])
        at = start + timedelta(seconds=rng.uniform(0, 60 * 86400))
        value = round(rng.uniform(80, 99), 1)
        items.append(
            RetainItem(
                content=f"ALERT {sig} fired on {host}: value {value} above threshold (alert #{n}).",
                occurred_at=at,
                source="monitoring",
                provenance="tool",
                metadata={"event": "alert", "signature": sig, "host": host, "value": value},
            )
        )
        truth[(sig, host)]["alerts"] += 1
        if sig in benign and rng.random() < 0.15:
            reason = REASONS[names.index(sig) % len(REASONS)]
            items.append(
                RetainItem(
                    content=f"Analyst closed {sig} on {host} as benign: {reason} (ticket T-{n}).",
                    occurred_at=at + timedelta(minutes=30),
                    source="analyst",
                    metadata={"event": "dismissal", "signature": sig, "host": host, "reason": reason},
                )
            )
            truth[(sig, host)]["dismissals"] += 1
        elif sig not in benign and rng.random() < 0.3:
            items.append(
                RetainItem(
                    content=f"Confirmed incident INC-{n}: {sig} on {host} was a real failure.",
                    occurred_at=at + timedelta(minutes=45),
                    source="analyst",
                    metadata={"event": "incident", "signature": sig, "host": host},
                )
            )
            truth[(sig, host)]["incidents"] += 1
    items.sort(key=lambda item: item.occurred_at)
    return items, truth, benign


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--alerts", type=int, default=5000)
    parser.add_argument("--database", default="memoryhub_bench_consolidation")
    args = parser.parse_args()
    setup_django(args.database, fresh=True)

    from django.db import connection
    from django.db.models import Count

    from banks.models import Bank, Tenant
    from beliefs.channels.derived import belief_text
    from beliefs.models import Belief, Episode, Evidence, Fact
    from beliefs.services.consolidate import consolidate
    from beliefs.services.extract import bank_extract
    from beliefs.services.recall import RecallOptions, recall
    from beliefs.services.retain import retain
    from memoryhub.embeddings import warm_up
    from memoryhub.tokens import count_tokens

    warm_up()
    rng = random.Random(5)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    tenant = Tenant.objects.create(slug="bench", name="Bench")
    bank = Bank.objects.create(tenant=tenant, slug="alerts", name="Alerts")
    items, truth, benign = build_stream(rng, args.alerts, start)
    print(f"{len(items)} episodes ({args.alerts} alerts) over {len(truth)} signature/host pairs", file=sys.stderr)

    with Timer() as retain_timer:
        for offset in range(0, len(items), 500):
            retain(bank=bank, items=items[offset : offset + 500])
    now = start + timedelta(days=61)
    with Timer() as extract_timer:
        while bank_extract(bank=bank, limit=2000).episodes:
            pass
    with Timer() as consolidate_timer:
        while consolidate(bank=bank, now=now, limit=5000).facts:
            pass
    rerun = consolidate(bank=bank, now=now)
    Fact.objects.filter(bank=bank).update(consolidated_at=None)
    with Timer() as refold_timer:
        refold = consolidate(bank=bank, now=now, limit=10**6)

    episodes = Episode.objects.filter(bank=bank).count()
    facts = Fact.objects.filter(bank=bank).count()
    beliefs = Belief.objects.filter(bank=bank).count()
    loose_facts = Fact.objects.filter(bank=bank).exclude(evidence__stance="supports").count()
    by_status = dict(Belief.objects.filter(bank=bank).values_list("status").annotate(n=Count("id")).order_by())

    # Citation integrity, over every belief and every evidence row.
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT count(*) FROM beliefs_evidence ev JOIN beliefs_episode ep ON ep.id = ev.episode_id
               WHERE ev.bank_id = %s
                 AND substr(ep.content, ev.quote_start + 1, ev.quote_end - ev.quote_start) <> ev.quote""",
            [bank.pk],
        )
        bad_quotes = cursor.fetchone()[0]
    uncited = Belief.objects.filter(bank=bank).exclude(evidence__stance="supports").count()
    evidence_rows = Evidence.objects.filter(bank=bank).count()

    # Tokens to answer "is signature X on host Y known?" at full evidence coverage.
    tokens = {pk: n for pk, n in Episode.objects.filter(bank=bank).values_list("id", "token_count")}
    pair_episodes = defaultdict(list)
    for pk, metadata in Episode.objects.filter(bank=bank).values_list("id", "metadata"):
        pair_episodes[(metadata["signature"], metadata["host"])].append(pk)
    without, with_beliefs = [], []
    for (sig, host), ids in pair_episodes.items():
        without.append(sum(tokens[pk] for pk in ids))
        pair_beliefs = Belief.objects.filter(bank=bank, subject__in=[f"alert {sig}", f"alert {sig} on {host}"])
        pair_beliefs = [b for b in pair_beliefs if host in b.statement]
        cost = 0
        for belief in pair_beliefs:
            quote = (
                belief.evidence.filter(stance="supports")
                .order_by("-observed_at")
                .values_list("quote", flat=True)
                .first()
            )
            cost += count_tokens(belief_text(belief)) + count_tokens(quote or "")
        with_beliefs.append(cost)

    # Through recall: does a 150-token recall for the pair return its verdict belief?
    sample = rng.sample(sorted(k for k, v in truth.items() if v["dismissals"] + v["incidents"] >= 2), 30)
    hits, episode_coverage = 0, []
    for sig, host in sample:
        verdict = (
            Belief.objects.filter(bank=bank, subject=f"alert {sig} on {host}", predicate="is")
            .order_by("-proof_count")
            .first()
        )
        question = f"is alert {sig} on {host} known benign or real?"
        result = recall(bank=bank, query=question, budget_tokens=150)
        if verdict and any(i.kind == "belief" and i.item_id == verdict.pk for i in result.items):
            hits += 1
        episodes_only = recall(bank=bank, query=question, budget_tokens=150, options=RecallOptions(kinds=("episode",)))
        cited = {pk for i in episodes_only.items for pk in (i.item_id, *i.duplicates)}
        episode_coverage.append(len(cited & set(pair_episodes[(sig, host)])) / len(pair_episodes[(sig, host)]))

    consolidation_seconds = extract_timer.seconds + consolidate_timer.seconds
    result = {
        "machine": machine(),
        "alerts": args.alerts,
        "episodes": episodes,
        "signatures": 40,
        "benign_signatures": len(benign),
        "signature_host_pairs": len(truth),
        "facts": facts,
        "beliefs": beliefs,
        "beliefs_by_status": by_status,
        "loose_facts": loose_facts,
        "compression_episodes_per_belief": round(episodes / beliefs, 1),
        "compression_items_after": round(episodes / (beliefs + loose_facts), 1),
        "tokens_per_answer": {
            "episodes_mean": round(statistics.fmean(without), 1),
            "beliefs_mean": round(statistics.fmean(with_beliefs), 1),
            "ratio": round(statistics.fmean(without) / statistics.fmean(with_beliefs), 1),
            "pairs": len(without),
        },
        "recall_150_tokens": {
            "verdict_belief_returned": f"{hits}/{len(sample)}",
            "episodes_only_evidence_coverage_mean": round(statistics.fmean(episode_coverage), 3),
        },
        "throughput": {
            "retain_s": round(retain_timer.seconds, 1),
            "extract_s": round(extract_timer.seconds, 1),
            "consolidate_s": round(consolidate_timer.seconds, 1),
            "episodes_per_s": round(episodes / consolidation_seconds, 1),
            "refold_all_facts_s": round(refold_timer.seconds, 1),
        },
        "idempotence": {
            "rerun_changed": rerun.beliefs_changed + rerun.beliefs_formed,
            "refold_changed": refold.beliefs_changed + refold.beliefs_formed,
        },
        "citations": {
            "evidence_rows": evidence_rows,
            "quotes_not_exact": bad_quotes,
            "beliefs_without_evidence": uncited,
        },
        "process_rss_mb": rss_mb(),
    }
    path = write_result("consolidation", result)
    print(path.read_text())
    assert bad_quotes == 0 and uncited == 0, "every belief must quote its episodes exactly"


if __name__ == "__main__":
    main()
