"""Workload records: triage decisions, churn interventions and outcomes, account links, procedural plays."""

from __future__ import annotations

from django.db import models
from pgvector.django import VectorField

from banks.models import Bank, Tenant
from beliefs.models.episodes import EMBEDDING_DIMENSIONS


class TriageDecision(models.Model):
    """One anomaly triage: suppress (with the belief it rests on) or investigate."""

    class Decision(models.TextChoices):
        SUPPRESS = "suppress", "Suppress"
        INVESTIGATE = "investigate", "Investigate"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="triage_decisions")
    signature = models.CharField(max_length=200)
    target = models.CharField(max_length=200)
    value = models.FloatField(null=True, blank=True)
    decided_at = models.DateTimeField(help_text="The triage's `now` (event time, replayable).")
    decision = models.CharField(max_length=16, choices=Decision.choices)
    belief = models.ForeignKey("beliefs.Belief", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    proof_count = models.PositiveIntegerField(default=0)
    confidence = models.FloatField(default=0.0)
    reasons = models.JSONField(default=list, blank=True)
    citations = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(name="beliefs_triage_bank_time", fields=["bank", "-decided_at"])]

    def __str__(self) -> str:
        return f"{self.decision} {self.signature} on {self.target}"


class Intervention(models.Model):
    """A churn play offered to an account; its outcome is scored when the horizon closes."""

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
    occurred_at = models.DateTimeField()
    horizon_days = models.PositiveIntegerField()
    outcome = models.CharField(max_length=16, choices=Outcome.choices, default=Outcome.PENDING)
    outcome_known_at = models.DateTimeField(null=True, blank=True, help_text="When the horizon closed (event time).")
    episode = models.ForeignKey("beliefs.Episode", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bank", "account", "play", "occurred_at"], name="%(app_label)s_%(class)s_unique_offer"
            )
        ]
        indexes = [
            models.Index(name="beliefs_intervention_account", fields=["bank", "account"]),
            models.Index(name="beliefs_intervention_segment", fields=["bank", "segment", "play", "outcome"]),
        ]

    def __str__(self) -> str:
        return f"{self.play} for {self.account} ({self.outcome})"


class OutcomeEvent(models.Model):
    """Something that happened to an account (renewed, churned); idempotent by ``event_id``."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="+")
    account = models.CharField(max_length=200)
    result = models.CharField(max_length=16, choices=[("retained", "Retained"), ("churned", "Churned")])
    occurred_at = models.DateTimeField()
    event_id = models.CharField(max_length=128)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bank", "event_id"], name="%(app_label)s_%(class)s_unique_event")
        ]
        indexes = [models.Index(name="beliefs_outcome_account_time", fields=["bank", "account", "occurred_at"])]

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
        constraints = [
            models.UniqueConstraint(
                fields=["bank", "account", "related_account", "relation"], name="%(app_label)s_%(class)s_unique_edge"
            )
        ]

    def __str__(self) -> str:
        return f"{self.account} -{self.relation}- {self.related_account}"


class Play(models.Model):
    """Procedural memory: a lesson accepted in review, used by recall and the workloads."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="plays")
    text = models.TextField()
    play = models.CharField(max_length=100, blank=True, default="", help_text="The churn play it is about, if any.")
    segment = models.CharField(max_length=100, blank=True, default="")
    signature = models.CharField(max_length=200, blank=True, default="", help_text="The alert it is about, if any.")
    review_item = models.ForeignKey("reviews.ReviewItem", on_delete=models.SET_NULL, null=True, related_name="+")
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.text[:80]
