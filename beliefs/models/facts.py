"""Semantic memory: subject–predicate–object facts read out of episodes.

Facts are bi-temporal. ``valid_at``/``invalid_at`` say when the fact held in the world;
``created_at``/``expired_at`` say when the bank learned it and when it learned that the
fact stopped holding. Both transaction-time stamps are the *recorded* time of the
episode that taught them, not the worker's wall clock, so replaying history or a late
worker gives the same timeline. A fact is never deleted or rewritten by an update: a
newer contradicting fact only closes its intervals.
"""

from __future__ import annotations

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from pgvector.django import HnswIndex, VectorField

from banks.models import Bank, Tenant
from beliefs.models.episodes import EMBEDDING_DIMENSIONS, SEARCH_CONFIG, Provenance


class Extractor(models.TextChoices):
    STRUCTURED = "structured", "Structured event"
    RULES = "rules", "Text rules"
    LLM = "llm", "LLM"


class Fact(models.Model):
    """One claim an episode makes, with the exact quote (and span) it came from."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="facts")
    episode = models.ForeignKey("beliefs.Episode", on_delete=models.CASCADE, related_name="facts")
    subject = models.CharField(max_length=255)
    subject_key = models.CharField(max_length=255)
    predicate = models.CharField(max_length=64)
    object = models.CharField(max_length=500)
    object_key = models.CharField(max_length=255)
    negated = models.BooleanField(default=False, help_text="The episode says the claim does not hold.")
    hedged = models.BooleanField(default=False, help_text="Stated with doubt ('probably', 'I think').")
    functional = models.BooleanField(
        default=False, help_text="The subject has one value for this predicate at a time (a new value replaces it)."
    )
    statement = models.TextField()
    quote = models.TextField()
    quote_start = models.PositiveIntegerField()
    quote_end = models.PositiveIntegerField()
    extractor = models.CharField(max_length=16, choices=Extractor.choices)
    provenance = models.CharField(max_length=16, choices=Provenance.choices, default=Provenance.USER)
    valid_at = models.DateTimeField()
    invalid_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    expired_at = models.DateTimeField(null=True, blank=True)
    invalidated_by = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)
    search_vector = models.GeneratedField(
        expression=SearchVector("statement", config=SEARCH_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    consolidated_at = models.DateTimeField(null=True, blank=True)
    quarantined = models.BooleanField(
        default=False,
        help_text="From an episode flagged as instruction-like or as a recall echo: not used as evidence.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["episode", "subject_key", "predicate", "object_key", "negated"],
                name="%(app_label)s_%(class)s_unique_episode_claim",
            ),
            models.CheckConstraint(
                condition=models.Q(quote_end__gt=models.F("quote_start")), name="%(app_label)s_%(class)s_quote_span"
            ),
        ]
        indexes = [
            models.Index(name="beliefs_fact_bank_slot", fields=["bank", "subject_key", "predicate", "valid_at"]),
            models.Index(
                name="beliefs_fact_unconsolidated",
                fields=["bank", "created_at", "id"],
                condition=models.Q(consolidated_at__isnull=True),
            ),
            HnswIndex(
                name="beliefs_fact_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            GinIndex(name="beliefs_fact_search_gin", fields=["search_vector"]),
        ]
        ordering = ["-valid_at", "-id"]

    def __str__(self) -> str:
        return self.statement
