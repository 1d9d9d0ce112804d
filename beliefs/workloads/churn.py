"""Churn: interventions judged on outcomes that arrive months later, and plays ranked per segment.

An intervention stays episodic until its outcome horizon (``churn.horizon_days``, 60–90)
closes; ``interventions_score`` then scores it from outcome events inside the window —
churned if the account churned, retained if it renewed, unknown otherwise — and records
a ``play_outcome`` episode, which consolidation folds into a segment-effectiveness
belief ("play P in segment S retains accounts": supporting = retained, contradicting =
churned, so proof and contradiction counts are the sample). ``recommend`` ranks plays
for an account by the lower bound of the Wilson interval of their retention rate in its
segment, counting only outcomes known at ``now``, and never proposes a play that
already failed for the account or an account linked to it, nor one still in flight.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from banks.models import Bank
from banks.policy import bank_policy
from beliefs.extractors import claim_key
from beliefs.models import AccountLink, Belief, Intervention, OutcomeEvent, Play
from beliefs.workloads.common import record_event
from memoryhub.exceptions import InterventionNotFound


def intervention_record(
    *, bank: Bank, account: str, segment: str, play: str, occurred_at: datetime, fold_now: bool = False
) -> tuple[Intervention, bool]:
    """Record that ``play`` was offered to ``account`` (idempotent per account, play and time)."""
    horizon = bank_policy(bank).churn_horizon_days
    existing = Intervention.objects.filter(bank=bank, account=account, play=play, occurred_at=occurred_at).first()
    if existing is not None:
        return existing, False
    episode_id = record_event(
        bank=bank,
        content=f"Intervention: offered {account} ({segment}) the {play} play",
        metadata={"event": "intervention", "account": account, "segment": segment, "play": play},
        occurred_at=occurred_at,
        source="crm",
        subject=f"account:{account}",
        fold_now=fold_now,
    )
    try:
        with transaction.atomic():
            intervention = Intervention.objects.create(
                tenant_id=bank.tenant_id,
                bank=bank,
                account=account,
                segment=segment,
                play=play,
                occurred_at=occurred_at,
                horizon_days=horizon,
                episode_id=episode_id,
            )
    except IntegrityError:
        return Intervention.objects.get(bank=bank, account=account, play=play, occurred_at=occurred_at), False
    return intervention, True


def outcome_record(
    *, bank: Bank, account: str, result: str, occurred_at: datetime, event_id: str
) -> tuple[OutcomeEvent, bool]:
    """Record an outcome event; a repeated ``event_id`` is a no-op, an account never intervened on is an error."""
    existing = OutcomeEvent.objects.filter(bank=bank, event_id=event_id).first()
    if existing is not None:
        return existing, False
    if not Intervention.objects.filter(bank=bank, account=account).exists():
        raise InterventionNotFound(extra={"account": account})
    try:
        with transaction.atomic():
            event = OutcomeEvent.objects.create(
                tenant_id=bank.tenant_id,
                bank=bank,
                account=account,
                result=result,
                occurred_at=occurred_at,
                event_id=event_id,
            )
    except IntegrityError:
        return OutcomeEvent.objects.get(bank=bank, event_id=event_id), False
    return event, True


def account_link(*, bank: Bank, account: str, related_account: str, relation: str) -> AccountLink:
    link, _ = AccountLink.objects.get_or_create(
        bank=bank,
        account=account,
        related_account=related_account,
        relation=relation,
        defaults={"tenant_id": bank.tenant_id},
    )
    return link


def interventions_score(*, bank: Bank, now: datetime | None = None, fold_now: bool = False) -> int:
    """Score every pending intervention whose horizon closed by ``now``; returns how many were scored."""
    now = now or timezone.now()
    scored = 0
    pending = Intervention.objects.filter(bank=bank, outcome=Intervention.Outcome.PENDING).order_by("occurred_at", "id")
    for intervention in pending:
        closes = intervention.occurred_at + timedelta(days=intervention.horizon_days)
        if closes > now:
            continue
        window = OutcomeEvent.objects.filter(
            bank=bank, account=intervention.account, occurred_at__gt=intervention.occurred_at, occurred_at__lte=closes
        )
        if window.filter(result="churned").exists():
            outcome = Intervention.Outcome.CHURNED
        elif window.filter(result="retained").exists():
            outcome = Intervention.Outcome.RETAINED
        else:
            outcome = Intervention.Outcome.UNKNOWN
        with transaction.atomic():
            updated = Intervention.objects.filter(pk=intervention.pk, outcome=Intervention.Outcome.PENDING).update(
                outcome=outcome, outcome_known_at=closes
            )
            if not updated:
                continue  # another scorer got here first
            record_event(
                bank=bank,
                content=(
                    f"Outcome: {intervention.account} ({intervention.segment}) {outcome} "
                    f"{intervention.horizon_days} days after the {intervention.play} play"
                ),
                metadata={
                    "event": "play_outcome",
                    "account": intervention.account,
                    "segment": intervention.segment,
                    "play": intervention.play,
                    "result": outcome,
                },
                occurred_at=closes,
                source="crm",
                subject=f"account:{intervention.account}",
                fold_now=fold_now,
                idempotency_key=f"play-outcome-{intervention.pk}",
            )
        scored += 1
    return scored


def related_accounts(bank: Bank, account: str) -> set[str]:
    """The account and every account one link away (subsidiaries, shared contacts, same buyer)."""
    links = AccountLink.objects.filter(Q(account=account) | Q(related_account=account), bank=bank)
    return {account} | {link.related_account for link in links} | {link.account for link in links}


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return round(max(0.0, centre - margin), 4), round(min(1.0, centre + margin), 4)


def segment_effectiveness(*, bank: Bank, segment: str, now: datetime) -> dict[str, dict]:
    """Per play in ``segment``: retained and scored counts, known by ``now``."""
    stats: dict[str, dict] = {}
    scored = Intervention.objects.filter(
        bank=bank, segment=segment, outcome__in=["retained", "churned"], outcome_known_at__lte=now
    ).values_list("play", "outcome")
    for play, outcome in scored:
        entry = stats.setdefault(play, {"retained": 0, "n": 0})
        entry["n"] += 1
        entry["retained"] += outcome == "retained"
    return stats


def recommend(
    *,
    bank: Bank,
    account: str,
    segment: str,
    now: datetime | None = None,
    plays: list[str] | None = None,
    limit: int = 3,
) -> dict:
    """Plays for an at-risk account, best first, with sample sizes; failed and in-flight plays are excluded."""
    now = now or timezone.now()
    family = related_accounts(bank, account)
    excluded: dict[str, dict] = {}
    for tried in Intervention.objects.filter(bank=bank, account__in=family, occurred_at__lte=now).order_by(
        "occurred_at"
    ):
        known = tried.outcome_known_at is not None and tried.outcome_known_at <= now
        if known and tried.outcome == "churned":
            who = "this account" if tried.account == account else f"related account {tried.account}"
            excluded[tried.play] = {
                "play": tried.play,
                "reason": f"already tried and failed for {who} on {tried.occurred_at:%Y-%m-%d}",
            }
        elif not known and tried.account == account and tried.play not in excluded:
            excluded[tried.play] = {"play": tried.play, "reason": "offered already; the outcome is not known yet"}
    stats = segment_effectiveness(bank=bank, segment=segment, now=now)
    candidates = (
        set(plays or [])
        | set(stats)
        | set(Intervention.objects.filter(bank=bank).values_list("play", flat=True).distinct())
    )
    ranked = []
    for play in sorted(candidates - set(excluded)):
        entry = stats.get(play, {"retained": 0, "n": 0})
        low, high = wilson(entry["retained"], entry["n"])
        belief = Belief.objects.filter(
            bank=bank, subject_key=claim_key(f"play {play} in segment {segment}"), predicate="retains"
        ).first()
        ranked.append(
            {
                "play": play,
                "retained": entry["retained"],
                "n": entry["n"],
                "rate": round(entry["retained"] / entry["n"], 4) if entry["n"] else None,
                "interval": [low, high],
                "belief_id": belief.pk if belief else None,
                "summary": f"{play} in {segment}: {entry['retained']} of {entry['n']} retained",
            }
        )
    ranked.sort(key=lambda r: (-r["interval"][0], -r["n"], r["play"]))
    # Accepted lessons (procedural memory) for this segment travel with the ranking as guidance.
    guidance = [
        {"play_id": p.pk, "text": p.text, "play": p.play}
        for p in Play.objects.filter(bank=bank).filter(Q(segment="") | Q(segment=segment)).order_by("id")
    ]
    return {
        "account": account,
        "segment": segment,
        "now": now,
        "recommendations": ranked[:limit],
        "excluded": sorted(excluded.values(), key=lambda e: e["play"]),
        "guidance": guidance,
    }
