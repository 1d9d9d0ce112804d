"""A bank's play catalogue: each play's horizon (30–180 days), which an intervention may override.

The horizon an intervention gets is, first that applies: the ``horizon_days`` it was recorded
with, the play's catalogue horizon, the bank's ``churn.horizon_days`` (default 75). It is
stored on the intervention, so changing the catalogue later changes only later offers.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from audit.services import audit_record
from banks.models import Bank
from banks.policy import bank_policy
from beliefs.defense.apply import values_defend
from memoryhub.exceptions import PlayNotFound
from workloads.models import ChurnPlay, Intervention

HORIZON_MIN_DAYS, HORIZON_MAX_DAYS = 30, 180


def play_upsert(
    *, bank: Bank, name: str, horizon_days: int, description: str = "", actor: str | None = None
) -> tuple[ChurnPlay, bool]:
    """Add ``name`` to the catalogue or change its horizon and description; returns ``(play, created)``.

    Audited when changed for ``actor``.
    """
    if not HORIZON_MIN_DAYS <= horizon_days <= HORIZON_MAX_DAYS:
        raise ValueError(f"horizon_days must be between {HORIZON_MIN_DAYS} and {HORIZON_MAX_DAYS}")
    description = values_defend(bank=bank, value=description, field="description")
    try:
        with transaction.atomic():
            play, created = ChurnPlay.objects.update_or_create(
                bank=bank,
                name=name,
                defaults={"horizon_days": horizon_days, "description": description},
                create_defaults={
                    "tenant_id": bank.tenant_id,
                    "horizon_days": horizon_days,
                    "description": description,
                },
            )
    except IntegrityError:  # created concurrently: update the row that won
        play = ChurnPlay.objects.get(bank=bank, name=name)
        play.horizon_days, play.description = horizon_days, description
        play.save(update_fields=["horizon_days", "description", "updated_at"])
        created = False
    if actor:
        action = "churn.play_created" if created else "churn.play_updated"
        audit_record(tenant=bank.tenant_id, bank=bank, action=action, target=f"play:{play.name}", actor=actor)
    return play, created


def play_get(*, bank: Bank, name: str) -> ChurnPlay:
    """One play of the bank's catalogue; ``PlayNotFound`` otherwise."""
    play = ChurnPlay.objects.filter(bank=bank, name=name).first()
    if play is None:
        raise PlayNotFound()
    return play


def play_delete(*, bank: Bank, name: str, actor: str | None = None) -> None:
    """Remove a play from the catalogue; interventions already recorded keep their horizon (audited for ``actor``)."""
    with transaction.atomic():
        play_get(bank=bank, name=name).delete()
        if actor:
            audit_record(tenant=bank.tenant_id, bank=bank, action="churn.play_deleted",
                         target=f"play:{name}", actor=actor)  # fmt: skip


def play_list(*, bank: Bank):
    """The bank's catalogue, by name."""
    return ChurnPlay.objects.filter(bank=bank).order_by("name")


def horizon_for(*, bank: Bank, play: str, horizon_days: int | None = None) -> tuple[int, str]:
    """``(days, source)`` for a new intervention of ``play``: its override, the catalogue's, or the bank's."""
    if horizon_days is not None:
        if not HORIZON_MIN_DAYS <= horizon_days <= HORIZON_MAX_DAYS:
            raise ValueError(f"horizon_days must be between {HORIZON_MIN_DAYS} and {HORIZON_MAX_DAYS}")
        return horizon_days, Intervention.HorizonSource.INTERVENTION
    listed = ChurnPlay.objects.filter(bank=bank, name=play).values_list("horizon_days", flat=True).first()
    if listed is not None:
        return listed, Intervention.HorizonSource.PLAY
    return bank_policy(bank).churn_horizon_days, Intervention.HorizonSource.BANK


def catalogue_horizons(*, bank: Bank) -> dict[str, int]:
    """Play name → catalogue horizon, for every play in the catalogue."""
    return dict(ChurnPlay.objects.filter(bank=bank).values_list("name", "horizon_days"))
