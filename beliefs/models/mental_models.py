"""Standing answers: a bank's named questions, answered from beliefs and stored."""

from __future__ import annotations

from django.db import models
from pgvector.django import VectorField

from banks.models import Bank, Tenant
from beliefs.models.episodes import EMBEDDING_DIMENSIONS


class MentalModel(models.Model):
    """A named standing question whose cited answer is rebuilt after consolidation.

    Reading one is a plain row read: the answer, its citations and the beliefs it used
    are stored here by ``mental_model_refresh``.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Not built yet"
        ANSWERED = "answered", "Answered"
        UNSUPPORTED = "no_supported_answer", "No supported answer"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="mental_models")
    name = models.CharField(max_length=63)
    question = models.TextField()
    belief_filter = models.JSONField(default=dict, blank=True, help_text="Optional structured selection of beliefs.")
    max_beliefs = models.PositiveIntegerField(default=10)
    status = models.CharField(max_length=24, choices=Status.choices, default=Status.PENDING)
    answer = models.TextField(blank=True, default="")
    citations = models.JSONField(default=list, blank=True)
    source_belief_ids = models.JSONField(default=list, blank=True)
    question_embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)
    refreshed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bank", "name"], name="%(app_label)s_%(class)s_unique_bank_name"),
        ]
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name}: {self.question}"


class BankUsage(models.Model):
    """LLM calls and tokens a bank spent in one calendar month (the per-bank cap reads this)."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="usage")
    period = models.DateField(help_text="First day of the month.")
    llm_calls = models.PositiveIntegerField(default=0)
    llm_failures = models.PositiveIntegerField(default=0)
    llm_tokens_in = models.PositiveBigIntegerField(default=0)
    llm_tokens_out = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bank", "period"], name="%(app_label)s_%(class)s_unique_bank_period"),
        ]

    def __str__(self) -> str:
        return f"bank {self.bank_id} {self.period:%Y-%m}: {self.llm_tokens_in + self.llm_tokens_out} LLM tokens"


class RecallUsageDay(models.Model):
    """How much of their budgets agents' recalls used, per bank and day (the dashboard's utilisation chart)."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="recall_usage")
    day = models.DateField()
    recalls = models.PositiveIntegerField(default=0)
    tokens_used = models.PositiveBigIntegerField(default=0)
    budget_tokens = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bank", "day"], name="%(app_label)s_%(class)s_unique_bank_day"),
        ]

    def __str__(self) -> str:
        return f"bank {self.bank_id} {self.day}: {self.recalls} recalls, {self.tokens_used}/{self.budget_tokens} tokens"
