"""Consolidated memory: beliefs backed by evidence, with every change versioned."""

from __future__ import annotations

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from pgvector.django import HnswIndex

from banks.models import Bank, Tenant
from beliefs.engine import confidence
from beliefs.models.embedding_field import EmbeddingField
from beliefs.models.episodes import EMBEDDING_DIMENSIONS, SEARCH_CONFIG


class Belief(models.Model):
    """What a bank holds to be true about one subject–predicate–object claim.

    ``proof_count`` is the number of distinct episodes that support it; ``confidence``
    follows the rule in ``beliefs.engine.confidence``. A belief is refined, never
    overwritten: each change writes a ``BeliefVersion``. ``valid_from``/``valid_to`` is
    the interval in which the world was believed to be this way.
    """

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        CONTESTED = "contested", "Contested"
        STALE = "stale", "Stale"
        INVALIDATED = "invalidated", "Invalidated"
        RETRACTED = "retracted", "Retracted"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="beliefs")
    key = models.CharField(max_length=64, help_text="Hash of the normalised subject, predicate and object.")
    subject = models.CharField(max_length=255)
    subject_key = models.CharField(max_length=255)
    predicate = models.CharField(max_length=64)
    object = models.CharField(max_length=500)
    object_key = models.CharField(max_length=255)
    statement = models.TextField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    confidence = models.FloatField(default=0.0, help_text="Confidence when last assessed, decay included.")
    base_confidence = models.FloatField(default=0.0, help_text="Confidence from evidence alone, before decay.")
    proof_count = models.PositiveIntegerField(default=0)
    contradiction_count = models.PositiveIntegerField(default=0)
    support_weight = models.FloatField(default=0.0)
    contradiction_weight = models.FloatField(default=0.0)
    first_seen_at = models.DateTimeField()
    last_confirmed_at = models.DateTimeField()
    valid_from = models.DateTimeField()
    valid_to = models.DateTimeField(null=True, blank=True)
    formed_at = models.DateTimeField(help_text="When the bank learned enough to hold it (recorded time).")
    updated_at = models.DateTimeField(auto_now=True)
    version = models.PositiveIntegerField(default=1)
    embedding = EmbeddingField(dimensions=EMBEDDING_DIMENSIONS)
    search_vector = models.GeneratedField(
        expression=SearchVector("statement", config=SEARCH_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bank", "key"], name="%(app_label)s_%(class)s_unique_bank_key"),
        ]
        indexes = [
            models.Index(name="beliefs_belief_bank_status", fields=["bank", "status", "-confidence"]),
            models.Index(name="beliefs_belief_bank_slot", fields=["bank", "subject_key", "predicate"]),
            models.Index(name="beliefs_belief_bank_confirmed", fields=["bank", "last_confirmed_at"]),
            HnswIndex(
                name="beliefs_belief_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            GinIndex(name="beliefs_belief_search_gin", fields=["search_vector"]),
        ]
        ordering = ["-confidence", "-id"]

    def __str__(self) -> str:
        return f"{self.statement} ({self.status}, {self.proof_count} proofs)"


class Evidence(models.Model):
    """An episode that supports or contradicts a belief, with the exact quote and its span."""

    class Stance(models.TextChoices):
        # The spelling the pure engine uses too (beliefs.engine.confidence).
        SUPPORTS = confidence.SUPPORTS, "Supports"
        CONTRADICTS = confidence.CONTRADICTS, "Contradicts"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="+")
    belief = models.ForeignKey(Belief, on_delete=models.CASCADE, related_name="evidence")
    episode = models.ForeignKey("beliefs.Episode", on_delete=models.CASCADE, related_name="evidence")
    fact = models.ForeignKey("beliefs.Fact", on_delete=models.CASCADE, null=True, blank=True, related_name="evidence")
    stance = models.CharField(max_length=16, choices=Stance.choices)
    quote = models.TextField()
    quote_start = models.PositiveIntegerField()
    quote_end = models.PositiveIntegerField()
    weight = models.FloatField(help_text="Trust of the source times the hedging discount.")
    observed_at = models.DateTimeField(help_text="When the episode happened.")
    recorded_at = models.DateTimeField(help_text="When the bank learned it.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["belief", "episode", "stance"], name="%(app_label)s_%(class)s_unique_belief_episode_stance"
            ),
        ]
        indexes = [models.Index(name="beliefs_evidence_episode", fields=["episode"])]
        verbose_name_plural = "evidence"

    def __str__(self) -> str:
        return f"episode {self.episode_id} {self.stance} belief {self.belief_id}"


class BeliefVersion(models.Model):
    """One change to a belief: before and after, why, and the evidence that caused it."""

    class Cause(models.TextChoices):
        FORMED = "formed", "Formed"
        REINFORCED = "reinforced", "Reinforced"
        CONTRADICTED = "contradicted", "Contradicted"
        INVALIDATED = "invalidated", "Invalidated"
        RESTORED = "restored", "Restored"
        DECAYED = "decayed", "Decayed"
        EVIDENCE_REMOVED = "evidence_removed", "Evidence removed"
        REVIEWED = "reviewed", "Reviewed"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="+")
    belief = models.ForeignKey(Belief, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    cause = models.CharField(max_length=24, choices=Cause.choices)
    old_statement = models.TextField(blank=True, default="")
    new_statement = models.TextField()
    old_confidence = models.FloatField(null=True, blank=True)
    new_confidence = models.FloatField()
    old_proof_count = models.PositiveIntegerField(null=True, blank=True)
    new_proof_count = models.PositiveIntegerField()
    old_status = models.CharField(max_length=16, blank=True, default="")
    new_status = models.CharField(max_length=16)
    evidence_ids = models.JSONField(default=list, blank=True)
    effective_at = models.DateTimeField(help_text="The bank's knowledge time of the change (replayable).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["belief", "version"], name="%(app_label)s_%(class)s_unique_belief_version"),
        ]
        indexes = [models.Index(name="beliefs_version_bank_effective", fields=["bank", "effective_at"])]
        ordering = ["belief_id", "version"]

    def __str__(self) -> str:
        return f"belief {self.belief_id} v{self.version} ({self.cause})"
