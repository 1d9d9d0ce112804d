"""Interventions (a play offered to an account) and the account graph."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q

from audit.services import audit_record
from banks.models import Bank
from workloads.churn.catalogue import horizon_for
from workloads.events import record_event
from workloads.models import AccountLink, Intervention


def intervention_record(
    *,
    bank: Bank,
    account: str,
    segment: str,
    play: str,
    occurred_at: datetime,
    horizon_days: int | None = None,
    fold_now: bool = False,
    actor: str | None = None,
) -> tuple[Intervention, bool]:
    """Record that ``play`` was offered to ``account``; idempotent per account, play and time.

    The horizon is ``horizon_days`` when given (30–180), else the play's catalogue horizon,
    else the bank's default; the offer is also retained as an episode (recallable history). A new
    intervention recorded for ``actor`` is audited.
    """
    existing = Intervention.objects.filter(bank=bank, account=account, play=play, occurred_at=occurred_at).first()
    if existing is not None:
        return existing, False
    days, source = horizon_for(bank=bank, play=play, horizon_days=horizon_days)
    episode_id = record_event(
        bank=bank,
        content=f"Intervention: offered {account} ({segment}) the {play} play, {days}-day horizon",
        metadata={"event": "intervention", "account": account, "segment": segment, "play": play, "horizon_days": days},
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
                horizon_days=days,
                horizon_source=source,
                horizon_closes_at=occurred_at + timedelta(days=days),
                episode_id=episode_id,
            )
            if actor:
                audit_record(tenant=bank.tenant_id, bank=bank, action="churn.intervention",
                             target=f"intervention:{intervention.pk}", actor=actor)  # fmt: skip
    except IntegrityError:
        return Intervention.objects.get(bank=bank, account=account, play=play, occurred_at=occurred_at), False
    return intervention, True


def account_link(*, bank: Bank, account: str, related_account: str, relation: str) -> AccountLink:
    """Link two accounts (parent/subsidiary, shared contact, same buyer); idempotent."""
    link, _ = AccountLink.objects.get_or_create(
        bank=bank,
        account=account,
        related_account=related_account,
        relation=relation,
        defaults={"tenant_id": bank.tenant_id},
    )
    return link


def related_accounts(bank: Bank, account: str) -> set[str]:
    """The account and every account one link away (subsidiaries, shared contacts, same buyer)."""
    links = AccountLink.objects.filter(Q(account=account) | Q(related_account=account), bank=bank)
    return {account} | {link.related_account for link in links} | {link.account for link in links}
