"""Fill a bank with ``n`` of everything a list shows, through the real services, to count queries at two sizes.

``populate(bank, n)`` is cumulative: call it with 2, measure, call it with 20, measure again. Each call tops
every kind of row up to ``n`` (episodes, facts and beliefs with ``min(n, 3)`` pieces of evidence each, mental models,
triage decisions and suppressions, lessons, churn plays, interventions, outcomes and links, audit events,
Memory Defense re-scans, erasure requests, API keys, banks and people with roles), so a list or page that
runs one query per row shows it as a count that grows.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model

from audit.models import AuditEvent
from audit.services import audit_record
from banks.models import ApiKey, Bank, Membership
from banks.permissions import Role
from banks.services.api_keys import api_key_issue
from banks.services.banks import bank_role_set, membership_set
from beliefs.models import DefenseRescan, ErasureRequest, MentalModel
from beliefs.services.defense.rescan import defense_rescan_start
from beliefs.services.extract import bank_extract
from beliefs.services.forget.subjects import erasure_request_create
from beliefs.services.mental_models import mental_model_create, mental_models_refresh
from beliefs.services.retain import RetainItem, retain
from reviews.services.decisions import review_item_decide
from tests.factories import BankFactory
from workloads.anomaly import triage
from workloads.churn import account_link, intervention_record, outcome_record, play_upsert
from workloads.distill import lessons_submit
from workloads.models import AccountLink, ChurnPlay, Intervention, TriageDecision

BASE = datetime(2026, 3, 2, 2, 0, tzinfo=UTC)
EVIDENCE = 3  # dismissals per signature at most: n * n episodes would make the large size slow for nothing


def populate(bank: Bank, n: int) -> None:
    """Top ``bank`` (and its tenant) up to ``n`` rows of each kind (see the module docstring)."""
    tenant = bank.tenant
    if "anomaly" not in bank.policy:  # suppress on two proofs and send every suppression to review: rows from n=2
        bank.policy = {**bank.policy, "anomaly": {"suppress_threshold": 2, "review": "all"}}
        bank.save(update_fields=["policy"])
    _beliefs(bank, n)
    have = MentalModel.objects.filter(bank=bank).count()
    for i in range(have, n):
        mental_model_create(bank=bank, name=f"model-{i}", question=f"Which alerts are benign ({i})?",
                            belief_filter={"object": "benign"}, actor="user:populate")  # fmt: skip
    for proven in (True, False):  # n proven signatures (suppressed, each with a review item), n unknown ones
        decisions = TriageDecision.objects.filter(bank=bank)
        have = (decisions.filter if proven else decisions.exclude)(signature__startswith="Sig").count()
        for i in range(have, n):
            signature, host = (f"Sig{i}", f"host-{i}") if proven else (f"Unknown{i}", "host-x")
            at = BASE + timedelta(days=60, hours=i, minutes=0 if proven else 30)
            triage(bank=bank, signature=signature, host=host, value=400 + i, now=at, actor="user:populate")
    _churn(bank, n)
    lessons = bank.review_items.filter(kind="distillation", status="pending").count()
    evidence = list(bank.episodes.order_by("id").values_list("id", flat=True)[:1])
    if lessons < n:
        lessons_submit(bank=bank, lessons=[{"text": f"Lesson {i}: call first", "play": "win-back", "segment": "SMB",
                                             "evidence_episode_ids": evidence} for i in range(lessons, n)])  # fmt: skip
    decided = bank.review_items.filter(kind="distillation").exclude(status="pending").count()
    if decided < n:  # decided items too (the queue's "decided" view): lessons rejected with a reason
        extra = lessons_submit(bank=bank, lessons=[{"text": f"Lesson {i}: discount first", "play": "discount",
                                                    "segment": "SMB", "evidence_episode_ids": evidence}
                                                   for i in range(decided, n)])  # fmt: skip
        for item in extra:
            review_item_decide(bank=bank, item_id=item.pk, decision="reject", comment="not proven",
                               actor="user:populate")  # fmt: skip
    have = DefenseRescan.objects.filter(bank=bank).count()
    for _ in range(have, n):
        defense_rescan_start(bank=bank, actor="user:populate")
    have = ErasureRequest.objects.filter(tenant=tenant).count()
    for i in range(have, n):
        erasure_request_create(tenant=tenant, bank=bank if i % 2 else None, subject=f"user:gone-{i}",
                               actor="user:populate")  # fmt: skip
    have = ApiKey.objects.filter(tenant=tenant, name__startswith="populated-key-").count()
    for i in range(have, n):
        api_key_issue(tenant=tenant, bank=bank if i % 2 else None, name=f"populated-key-{i}", scopes=["read"])
    have = Bank.objects.filter(tenant=tenant).exclude(pk=bank.pk).count()
    for _ in range(have, n):
        BankFactory(tenant=tenant)
    _people(bank, n)
    mental_models_refresh(bank=bank)  # what the task chain runs after consolidation: answers cite the new beliefs
    for i in range(AuditEvent.objects.filter(bank=bank, action="populated").count(), n):
        audit_record(tenant=tenant, bank=bank, action="populated", actor=f"user:populate-{i}", target=f"row:{i}")


def _beliefs(bank: Bank, n: int) -> None:
    """Signatures ``Sig0..Sig{n-1}``, each proven benign by ``min(n, 3)`` analyst dismissals on its host (one belief
    each): 2 pieces of evidence at the small size, 3 at the large one, so per-evidence queries show too."""
    items: list[RetainItem] = []
    for s in range(n):
        for d in range(min(n, EVIDENCE)):
            key = f"populated:{s}:{d}"
            if bank.episodes.filter(metadata__populated=key).exists():
                continue
            at = BASE + timedelta(days=7 * d, hours=s)
            items.append(RetainItem(
                content=f"Analyst closed Sig{s} on host-{s} as benign: backup window, week {d + 1}.",
                occurred_at=at, source="analyst",
                metadata={"event": "dismissal", "signature": f"Sig{s}", "host": f"host-{s}",
                          "reason": f"backup window, week {d + 1}", "populated": key},
            ))  # fmt: skip
    items.extend(
        RetainItem(content=f"Note {i} about disk latency on host-{i}.", source="agent", subject=f"host:host-{i}",
                   occurred_at=BASE + timedelta(hours=i), metadata={"populated": f"note:{i}"})
        for i in range(n) if not bank.episodes.filter(metadata__populated=f"note:{i}").exists()
    )  # fmt: skip
    if items:
        retain(bank=bank, items=items)
        bank_extract(bank=bank)
        from beliefs.services.consolidate import consolidate

        consolidate(bank=bank, now=BASE + timedelta(days=7 * EVIDENCE + 1))  # the same day at every size: no decay


def _churn(bank: Bank, n: int) -> None:
    for i in range(ChurnPlay.objects.filter(bank=bank).count(), n):
        play_upsert(bank=bank, name=f"play-{i}", horizon_days=60, actor="user:populate")
    have = Intervention.objects.filter(bank=bank).count()
    for i in range(have, n):
        intervention, _ = intervention_record(bank=bank, account=f"acct-{i}", segment="SMB", play=f"play-{i}",
                                              occurred_at=BASE + timedelta(days=i), actor="user:populate")  # fmt: skip
        outcome_record(bank=bank, account=f"acct-{i}", result="retained" if i % 2 else "churned",
                       occurred_at=BASE + timedelta(days=i + 20), event_id=f"populated-{i}",
                       actor="user:populate")  # fmt: skip
    for i in range(AccountLink.objects.filter(bank=bank).count(), n):
        account_link(bank=bank, account=f"acct-{i}", related_account=f"acct-{i + 1}", relation="parent")


def _people(bank: Bank, n: int) -> None:
    """``n`` members of the tenant holding a role on ``bank`` (one tenant admin among them)."""
    users = get_user_model().objects
    have = Membership.objects.filter(tenant=bank.tenant, user__username__startswith=f"populated-{bank.pk}-").count()
    roles = (Role.VIEWER, Role.REVIEWER, Role.BANK_ADMIN)
    for i in range(have, n):
        user = users.create_user(username=f"populated-{bank.pk}-{i}", password="secret-password")
        if i == 0:
            membership_set(tenant=bank.tenant, user=user, role=Membership.Role.ADMIN)
            continue
        membership_set(tenant=bank.tenant, user=user, role=Membership.Role.ANALYST)
        bank_role_set(bank=bank, user=user, role=roles[i % 3])
        api_key_issue(tenant=bank.tenant, bank=bank, name=f"populated-by-{i}", created_by=user, scopes=["read"])
