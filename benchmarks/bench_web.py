"""Dashboard benchmark: server time per page with 10,000 beliefs and 1,000 pending review items in a bank.

The bank is bulk-loaded (random unit vectors stand in for embeddings: no page reads them),
then each page is requested in-process through the full Django stack — session, roles,
row-level-security scope, template rendering — as a tenant admin, and timed. Query counts
per page are recorded beside the latencies (tests pin them). Run with ``make bench-web``;
results go to ``benchmarks/results/web.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

from common import Timer, machine, rss_mb, setup_django, summary_ms, synthetic_episode, write_result

# One signed-in person loads every page hundreds of times a minute here: lift the per-person rate limit,
# which would otherwise answer 429 (it is measured by its own tests, not timed here).
os.environ.setdefault("MEMORYHUB_USER_RATE_LIMIT_PER_MINUTE", "1000000")


def _vector(rng: random.Random, dims: int = 384) -> list[float]:
    values = [rng.gauss(0, 1) for _ in range(dims)]
    norm = sum(v * v for v in values) ** 0.5
    return [v / norm for v in values]


def build(args, rng: random.Random):
    from django.contrib.auth import get_user_model

    from audit.models import AuditEvent
    from banks.models import Membership
    from banks.services.banks import bank_create, membership_set, tenant_create
    from beliefs.models import Belief, BeliefVersion, Episode, Evidence, MentalModel
    from beliefs.services.extract import extraction_queue
    from reviews.models import ReviewItem
    from workloads.models import TriageDecision

    tenant = tenant_create(slug="bench", name="Benchmark")
    bank = bank_create(tenant=tenant, slug="web", name="Dashboard benchmark")
    user = get_user_model().objects.create_user("bench-admin", password="bench-password")
    membership_set(tenant=tenant, user=user, role=Membership.Role.ADMIN)
    start = datetime(2026, 6, 1, tzinfo=UTC)
    common = {"tenant_id": tenant.pk, "bank_id": bank.pk}

    rows = []
    for i in range(args.episodes):
        e = synthetic_episode(rng, i, start)
        rows.append(
            Episode(
                **common,
                content=e["content"],
                occurred_at=datetime.fromisoformat(e["occurred_at"]),
                recorded_at=datetime.fromisoformat(e["occurred_at"]),
                source=e["source"],
                subject=e["subject"],
                content_hash=hashlib.sha256(e["content"].encode()).hexdigest(),
                dedupe_key=f"bench-{i}",
                token_count=len(e["content"]) // 4,
                embedding=_vector(rng),
            )
        )
    episodes = Episode.objects.bulk_create(rows, batch_size=1000)
    extraction_queue(bank=bank, episodes=[(e.pk, e.recorded_at, start) for e in episodes])

    statuses = ["active"] * 80 + ["stale"] * 8 + ["contested"] * 5 + ["invalidated"] * 5 + ["retracted"] * 2
    beliefs = []
    for i in range(args.beliefs):
        subject = f"alert Sig{i % 400} on host-{i // 400:03d}"
        seen = start + timedelta(hours=i % 2000)
        beliefs.append(
            Belief(
                **common,
                key=hashlib.sha256(f"b{i}".encode()).hexdigest(),
                subject=subject,
                subject_key=subject.lower(),
                predicate="is",
                object="benign",
                object_key="benign",
                statement=f"{subject} is benign",
                status=rng.choice(statuses),
                confidence=round(rng.random(), 3),
                base_confidence=0.8,
                proof_count=rng.randint(1, 60),
                contradiction_count=rng.randint(0, 3),
                support_weight=3,
                contradiction_weight=0,
                first_seen_at=seen,
                last_confirmed_at=seen + timedelta(days=rng.randint(0, 60)),
                valid_from=seen,
                formed_at=seen,
                version=2,
                embedding=_vector(rng),
            )
        )
    beliefs = Belief.objects.bulk_create(beliefs, batch_size=1000)
    featured = beliefs[0]

    evidence, versions = [], []
    for n, episode in enumerate(episodes[: args.featured_evidence]):
        quote = episode.content[: max(12, len(episode.content) // 2)]
        evidence.append(
            Evidence(
                **common,
                belief=featured,
                episode=episode,
                stance="supports" if n % 10 else "contradicts",
                quote=quote,
                quote_start=0,
                quote_end=len(quote),
                weight=1.0,
                observed_at=episode.occurred_at,
                recorded_at=episode.recorded_at,
            )
        )
    for n, belief in enumerate(beliefs[1:]):
        episode = episodes[args.featured_evidence + n % (len(episodes) - args.featured_evidence)]
        evidence.append(
            Evidence(
                **common,
                belief=belief,
                episode=episode,
                stance="supports",
                quote=episode.content[:20],
                quote_start=0,
                quote_end=20,
                weight=1.0,
                observed_at=episode.occurred_at,
                recorded_at=episode.recorded_at,
            )
        )
    Evidence.objects.bulk_create(evidence, batch_size=2000)
    for belief in beliefs:
        count = 20 if belief.pk == featured.pk else 2
        for v in range(1, count + 1):
            versions.append(
                BeliefVersion(
                    **common,
                    belief=belief,
                    version=v,
                    cause="formed" if v == 1 else "reinforced",
                    new_statement=belief.statement,
                    new_confidence=min(1, 0.3 + v / 30),
                    new_proof_count=v,
                    new_status="active",
                    effective_at=belief.formed_at + timedelta(days=v),
                )
            )
    BeliefVersion.objects.bulk_create(versions, batch_size=2000)

    triages = TriageDecision.objects.bulk_create(
        [
            TriageDecision(
                **common,
                signature=f"Sig{i % 400}",
                target=f"host-{i:03d}",
                value=rng.randint(1, 900),
                decided_at=start + timedelta(days=120, minutes=i),
                decision="suppress",
                belief_status="active",
                belief=beliefs[i],
                proof_count=beliefs[i].proof_count,
                confidence=beliefs[i].confidence,
                citations=[
                    {"episode_id": episodes[j].pk, "quote": episodes[j].content[:60]} for j in range(i % 50, i % 50 + 3)
                ],
            )
            for i in range(args.pending - args.pending // 10)
        ],
        batch_size=1000,
    )
    items = [
        ReviewItem(
            **common,
            kind="suppression",
            title=f"Suppressed {t.signature} on {t.target}",
            belief_id=t.belief_id,
            triage=t,
            body="",
            payload={"citations": t.citations},
        )
        for t in triages
    ]
    items += [
        ReviewItem(
            **common,
            kind="distillation",
            title=f"Lesson {i}",
            body=f"Lesson {i}: offer training first.",
            payload={
                "text": "x",
                "play": "training-session",
                "segment": "SMB",
                "evidence_episode_ids": [episodes[i].pk, episodes[i + 1].pk],
            },
        )
        for i in range(args.pending // 10)
    ]
    ReviewItem.objects.bulk_create(items, batch_size=1000)
    AuditEvent.objects.bulk_create(
        [
            AuditEvent(
                tenant_id=tenant.pk,
                bank=bank,
                bank_slug=bank.slug,
                actor=f"api-key:k{i % 7}",
                action=rng.choice(["episodes.retained", "review.accept", "mental_model.created", "anomaly.suppress"]),
                target=f"retain_batch:{i}",
            )
            for i in range(args.audit)
        ],
        batch_size=2000,
    )
    for n in range(5):
        MentalModel.objects.create(
            **common,
            name=f"model-{n}",
            question=f"Standing question {n}?",
            question_embedding=_vector(rng),
            status="answered",
            answer="- a cited line",
            citations=[
                {
                    "belief_id": beliefs[k].pk,
                    "statement": beliefs[k].statement,
                    "proof_count": 3,
                    "confidence": 0.8,
                    "quote": "q",
                }
                for k in range(5)
            ],
            source_belief_ids=[featured.pk] if n == 0 else [],
        )
    return tenant, bank, user, featured, episodes[0]


def _get(client, path: str):
    """One request, its body read to the end (a streamed CSV is timed whole)."""
    response = client.get(path)
    if response.streaming:
        b"".join(response.streaming_content)
    return response


def _measure(client, path: str, requests: int, base: str) -> dict:
    """p50/p95 server time of ``requests`` GETs of ``path`` (after 3 warm-ups) and the SQL queries of one."""
    from django.db import connection

    for _ in range(3):
        assert _get(client, path).status_code == 200, path
    executed = []  # counted by a wrapper: Django clears its own query log when a request starts
    with connection.execute_wrapper(lambda execute, *a, seen=executed: seen.append(1) or execute(*a)):
        _get(client, path)
    times = []
    for _ in range(requests):
        with Timer() as one:
            response = _get(client, path)
        assert response.status_code == 200
        times.append(one.seconds)
    result = {**summary_ms(times), "queries": len(executed), "path": path.replace(base, "…/")}
    p50, p95 = result["p50_ms"], result["p95_ms"]
    print(f"{path[-60:]:60s} p50 {p50:8.2f} ms  p95 {p95:8.2f} ms  {result['queries']} queries")
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--beliefs", type=int, default=10_000)
    parser.add_argument("--pending", type=int, default=1_000)
    parser.add_argument("--episodes", type=int, default=2_000)
    parser.add_argument("--featured-evidence", type=int, default=50)
    parser.add_argument("--audit", type=int, default=50_000)
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--export-requests", type=int, default=5)
    args = parser.parse_args()

    setup_django("memoryhub_bench_web", fresh=True)
    from django.db import connection
    from django.test import Client
    from django.urls import NoReverseMatch, reverse

    from memoryhub.tenancy import rls_bypass

    rng = random.Random(12)
    with Timer() as load, rls_bypass():
        tenant, bank, user, featured, episode = build(args, rng)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")

    client = Client()
    client.force_login(user)
    base = f"/t/{tenant.slug}/banks/{bank.slug}/"
    pages = {
        "overview": base,
        "tenant home": f"/t/{tenant.slug}/",
        "belief list, filtered": base + "beliefs/?status=active&min_proof_count=10&min_confidence=0.5&sort=-proofs",
        "belief list, text search": base + "beliefs/?q=Sig17+benign",
        f"belief page, {args.featured_evidence} evidence quotes": base + f"beliefs/{featured.pk}/",
        "review queue (1,000 pending)": base + "reviews/",
        "review queue, suppressions": base + "reviews/?kind=suppression&page=5",
        "episode list": base + "episodes/",
        "episode page": base + f"episodes/{episode.pk}/",
        "suppression log": base + "anomaly/suppressions/",
        "mental models": base + "mental-models/",
    }
    exports = {}  # downloads, not pages: timed whole, fewer times, reported apart
    try:
        audit = reverse("audit_web:bank-audit", kwargs={"tenant_slug": tenant.slug, "bank_slug": bank.slug})
    except NoReverseMatch:
        audit = None  # the admin pages are not part of this build
    if audit:
        from audit.models import AuditEvent

        with rls_bypass():  # the row the 50th page starts after (pages walk a cursor, never an offset)
            deep = AuditEvent.objects.filter(bank=bank).order_by("-created_at", "-id")[49 * 50]
        settings_base = base + "settings/"
        pages["audit log"] = audit
        pages["audit log, 50th page"] = audit + "?" + urlencode({"before": f"{deep.created_at.isoformat()}_{deep.pk}"})
        pages["audit log, filtered"] = audit + "?action=review.&actor=api-key:k3"
        exports[f"audit log CSV, all {args.audit:,} events"] = audit + "?format=csv"
        exports["audit log CSV, one action (about a quarter)"] = audit + "?format=csv&action=review.accept"
        pages["tenant audit log"] = f"/t/{tenant.slug}/audit/"
        pages["bank policy form"] = settings_base + "policy/"
        pages["bank API keys"] = settings_base + "api-keys/"
        pages["bank members"] = settings_base + "members/"
        pages["tenant members"] = f"/t/{tenant.slug}/members/"
    results = {name: _measure(client, path, args.requests, base) for name, path in pages.items()}
    export_results = {name: _measure(client, path, args.export_requests, base) for name, path in exports.items()}
    payload = {
        "machine": machine(),
        "beliefs": args.beliefs,
        "pending_review_items": args.pending,
        "episodes": args.episodes,
        "audit_events": args.audit,
        "requests_per_page": args.requests,
        "load_seconds": round(load.seconds, 1),
        "pages": results,
        "exports": export_results,
        "worst_p95_ms": max(r["p95_ms"] for r in results.values()),
        "process_rss_mb": rss_mb(),
    }
    print(f"written {write_result('web', payload)}")


if __name__ == "__main__":
    main()
