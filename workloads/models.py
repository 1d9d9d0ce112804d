"""Workload records: anomaly triage decisions, and churn plays, interventions, outcomes and account links.

These models moved here from ``beliefs``: their tables keep the names they were created
with (``beliefs_*``), and so do their constraints and indexes.
"""

from __future__ import annotations

from django.db import models

from banks.models import Bank, Tenant


class TriageDecision(models.Model):
    """One anomaly triage: suppress (with the belief it rests on) or investigate."""

    class Decision(models.TextChoices):
        SUPPRESS = "suppress", "Suppress"
        INVESTIGATE = "investigate", "Investigate"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="triage_decisions")
    signature = models.CharField(max_length=200)
    target = models.CharField(max_length=200, help_text="The pattern's key under the bank's `anomaly.key`.")
    host = models.CharField(max_length=200, blank=True, default="")
    service = models.CharField(max_length=200, blank=True, default="")
    value = models.FloatField(null=True, blank=True)
    decided_at = models.DateTimeField(help_text="The triage's `now` (event time, replayable).")
    decision = models.CharField(max_length=16, choices=Decision.choices)
    belief = models.ForeignKey("beliefs.Belief", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    belief_status = models.CharField(
        max_length=16, blank=True, default="", help_text="The belief's status as assessed at `decided_at`."
    )
    proof_count = models.PositiveIntegerField(default=0, help_text="The belief's proof count at `decided_at`.")
    confidence = models.FloatField(default=0.0)
    reasons = models.JSONField(default=list, blank=True)
    citations = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "beliefs_triagedecision"
        indexes = [models.Index(name="beliefs_triage_bank_time", fields=["bank", "-decided_at"])]
        constraints = [
            # A suppression rests on a belief that was active when it was decided: never contested, stale or gone.
            models.CheckConstraint(
                condition=~models.Q(decision="suppress") | models.Q(belief_status="active"),
                name="beliefs_triagedecision_suppress_needs_active_belief",
            )
        ]

    def __str__(self) -> str:
        return f"{self.decision} {self.signature} on {self.target}"


class ChurnPlay(models.Model):
    """A play in a bank's catalogue: its name and how long its outcome takes (the horizon, 30–180 days)."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="churn_plays")
    name = models.CharField(max_length=100)
    horizon_days = models.PositiveIntegerField()
    description = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "beliefs_churnplay"
        constraints = [
            models.UniqueConstraint(fields=["bank", "name"], name="beliefs_churnplay_unique_bank_name"),
            models.CheckConstraint(
                condition=models.Q(horizon_days__gte=30, horizon_days__lte=180),
                name="beliefs_churnplay_horizon_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.horizon_days} days)"


class Intervention(models.Model):
    """A churn play offered to an account; its outcome counts once the horizon closed and the outcome is known."""

    class HorizonSource(models.TextChoices):
        INTERVENTION = "intervention", "Set on the intervention"
        PLAY = "play", "The play's catalogue horizon"
        BANK = "bank", "The bank's default horizon"

    class Outcome(models.TextChoices):
        PENDING = "pending", "Pending"
        RETAINED = "retained", "Retained"
        CHURNED = "churned", "Churned"
        UNKNOWN = "unknown", "Unknown"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="interventions")
    account = models.CharField(max_length=200)
    segment = models.CharField(max_length=100)
    play = models.CharField(max_length=100)
    occurred_at = models.DateTimeField(help_text="When the play was offered (the window opens).")
    horizon_days = models.PositiveIntegerField()
    horizon_source = models.CharField(max_length=16, choices=HorizonSource.choices, default=HorizonSource.BANK)
    horizon_closes_at = models.DateTimeField(help_text="`occurred_at` + `horizon_days`.")
    outcome = models.CharField(
        max_length=16,
        choices=Outcome.choices,
        default=Outcome.PENDING,
        help_text="As last scored; `recommend` recomputes the state at its own `now`.",
    )
    outcome_known_at = models.DateTimeField(null=True, blank=True, help_text="When the outcome started to count.")
    outcome_event = models.ForeignKey(
        "workloads.OutcomeEvent", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    episode = models.ForeignKey("beliefs.Episode", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "beliefs_intervention"
        constraints = [
            models.UniqueConstraint(
                fields=["bank", "account", "play", "occurred_at"], name="beliefs_intervention_unique_offer"
            )
        ]
        indexes = [
            models.Index(name="beliefs_intervention_account", fields=["bank", "account"]),
            models.Index(name="beliefs_intervention_segment", fields=["bank", "segment", "play", "outcome"]),
        ]

    def __str__(self) -> str:
        return f"{self.play} for {self.account} ({self.outcome})"


class OutcomeEvent(models.Model):
    """What an intervention produced (retained, churned, unknown), attributed to at most one intervention.

    Idempotent by ``event_id``; at most one outcome per intervention (a database constraint), so one
    outcome never counts twice and an intervention never gets two.
    """

    class Result(models.TextChoices):
        RETAINED = "retained", "Retained"
        CHURNED = "churned", "Churned"
        UNKNOWN = "unknown", "Unknown"

    class Attribution(models.TextChoices):
        NAMED = "named", "Named by the caller"
        WINDOW = "window", "By the window rule"
        NONE = "none", "No intervention's window contains it"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="+")
    account = models.CharField(max_length=200)
    result = models.CharField(max_length=16, choices=Result.choices)
    occurred_at = models.DateTimeField(help_text="When it happened (the effective time).")
    recorded_at = models.DateTimeField(help_text="When it was reported; it counts from then at the earliest.")
    event_id = models.CharField(max_length=128)
    intervention = models.ForeignKey(
        Intervention, on_delete=models.SET_NULL, null=True, blank=True, related_name="outcomes"
    )
    attribution = models.CharField(max_length=16, choices=Attribution.choices, default=Attribution.NONE)
    counts_from = models.DateTimeField(
        null=True, blank=True, help_text="The later of the horizon close and `recorded_at` (null: unattributed)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "beliefs_outcomeevent"
        constraints = [
            models.UniqueConstraint(fields=["bank", "event_id"], name="beliefs_outcomeevent_unique_event"),
            models.UniqueConstraint(fields=["intervention"], name="beliefs_outcomeevent_one_per_intervention"),
        ]
        indexes = [
            models.Index(name="beliefs_outcome_account_time", fields=["bank", "account", "occurred_at"]),
            models.Index(name="beliefs_outcome_counts_from", fields=["bank", "counts_from"]),
        ]

    def __str__(self) -> str:
        return f"{self.account} {self.result}"


class AccountLink(models.Model):
    """An edge of the account graph: parent/subsidiary, shared contact, same buyer."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="+")
    account = models.CharField(max_length=200)
    related_account = models.CharField(max_length=200)
    relation = models.CharField(max_length=64)

    class Meta:
        db_table = "beliefs_accountlink"
        constraints = [
            models.UniqueConstraint(
                fields=["bank", "account", "related_account", "relation"], name="beliefs_accountlink_unique_edge"
            )
        ]

    def __str__(self) -> str:
        return f"{self.account} -{self.relation}- {self.related_account}"
