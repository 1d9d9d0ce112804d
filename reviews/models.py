"""Review items: what a person must look at before it counts (suppressions, lessons, belief changes)."""

from __future__ import annotations

from django.db import models

from banks.models import Bank, Tenant


class ReviewItem(models.Model):
    """Something a person must look at: a suppression, a distilled lesson, a belief change."""

    class Kind(models.TextChoices):
        SUPPRESSION = "suppression", "Suppression"
        DISTILLATION = "distillation", "Distilled lesson"
        BELIEF_CHANGE = "belief_change", "Belief change"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"
        OVERTURNED = "overturned", "Overturned"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="review_items")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    title = models.CharField(max_length=300)
    body = models.TextField(blank=True, default="")
    belief = models.ForeignKey("beliefs.Belief", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    triage = models.ForeignKey(
        "workloads.TriageDecision", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    payload = models.JSONField(default=dict, blank=True, help_text="Lesson fields, citations, evidence ids.")
    comment = models.TextField(blank=True, default="")
    decided_by = models.CharField(max_length=200, blank=True, default="")
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(name="reviews_item_bank_status", fields=["bank", "status", "-created_at"])]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind}: {self.title} ({self.status})"
