"""Procedural memory: plays, the lessons a person accepted in review (distillation never promotes by itself)."""

from __future__ import annotations

from django.db import models

from banks.models import Bank, Tenant
from beliefs.models.embedding_field import EmbeddingField
from beliefs.models.episodes import EMBEDDING_DIMENSIONS


class Play(models.Model):
    """Procedural memory: a lesson accepted in review, used by recall and the workloads."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="plays")
    text = models.TextField()
    play = models.CharField(max_length=100, blank=True, default="", help_text="The churn play it is about, if any.")
    segment = models.CharField(max_length=100, blank=True, default="")
    signature = models.CharField(max_length=200, blank=True, default="", help_text="The alert it is about, if any.")
    review_item = models.ForeignKey("reviews.ReviewItem", on_delete=models.SET_NULL, null=True, related_name="+")
    embedding = EmbeddingField(dimensions=EMBEDDING_DIMENSIONS)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.text[:80]
