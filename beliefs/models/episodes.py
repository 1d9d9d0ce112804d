"""Episodic memory: what happened, when, and where it came from."""

from __future__ import annotations

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.utils import timezone
from pgvector.django import HnswIndex

from banks.models import Bank, Tenant
from beliefs.models.embedding_field import EmbeddingField

EMBEDDING_DIMENSIONS = 384
SEARCH_CONFIG = "english"


class Provenance(models.TextChoices):
    """Who wrote an item; consolidation weighs trust by it."""

    USER = "user", "User"
    TOOL = "tool", "Tool"
    AGENT = "agent", "Agent"
    IMPORTED = "imported", "Imported"


class Episode(models.Model):
    """One raw event, turn, alert or intervention in a bank.

    ``occurred_at`` is when it happened in the world; ``recorded_at`` is when the bank
    learned it (the axis ``as_of`` travels on). ``dedupe_key`` makes retain idempotent:
    the caller's idempotency key, or a hash of the item's content, time, source and subject.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="episodes")
    content = models.TextField()
    occurred_at = models.DateTimeField(default=timezone.now)
    recorded_at = models.DateTimeField(default=timezone.now)
    source = models.CharField(max_length=64, default="api")
    subject = models.CharField(max_length=255, blank=True, default="")
    # A conversation, session or incident the episode belongs to; neighbours in a thread give context.
    thread = models.CharField(max_length=128, blank=True, default="")
    provenance = models.CharField(max_length=16, choices=Provenance.choices, default=Provenance.USER)
    metadata = models.JSONField(default=dict, blank=True)
    content_hash = models.CharField(max_length=64)
    dedupe_key = models.CharField(max_length=160)
    token_count = models.PositiveIntegerField(default=0)
    embedding = EmbeddingField(dimensions=EMBEDDING_DIMENSIONS)
    search_vector = models.GeneratedField(
        expression=SearchVector("content", config=SEARCH_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    batch = models.ForeignKey("beliefs.RetainBatch", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # The time the content itself talks about ("yesterday" in a turn of 8 May -> 7 May), if any.
    mentions_time = models.BooleanField(default=False)
    mentioned_start = models.DateTimeField(null=True, blank=True)
    mentioned_end = models.DateTimeField(null=True, blank=True)
    # Prompt-injection markers found at retain (reasons); a flagged episode's facts stay out of beliefs until released.
    injection_flags = models.JSONField(default=list, blank=True)
    # Where in ``content`` each marker was found: [{"family", "start", "end"}] (flags found in metadata have none).
    injection_spans = models.JSONField(default=list, blank=True)
    # Text an agent wrote back after reading it from recall: kept, never used as new evidence.
    echo_of = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    quarantine_released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bank", "dedupe_key"], name="%(app_label)s_%(class)s_unique_bank_dedupe_key"
            ),
        ]
        indexes = [
            # Every retained episode is inserted into this graph: the candidate list of an insert
            # (ef_construction) is most of an episode's write cost; at 64 (pgvector's default) an insert costs
            # about half of what it did at 128, and walks find the same neighbours
            # (docs/development/decisions/episode-graph-insert-effort.md).
            HnswIndex(
                name="beliefs_episode_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            GinIndex(name="beliefs_episode_search_gin", fields=["search_vector"]),
            models.Index(name="beliefs_episode_bank_occurred", fields=["bank", "-occurred_at"]),
            models.Index(name="beliefs_episode_bank_recorded", fields=["bank", "recorded_at"]),
            models.Index(name="beliefs_episode_bank_subject", fields=["bank", "subject"]),
            models.Index(name="beliefs_episode_bank_source", fields=["bank", "source"]),
            models.Index(name="beliefs_episode_bank_thread", fields=["bank", "thread", "occurred_at", "id"]),
            # Retain looks agent-written texts up by hash (an echo of what recall handed out).
            models.Index(name="beliefs_episode_bank_content", fields=["bank", "content_hash"]),
            models.Index(
                name="beliefs_episode_bank_timed",
                fields=["bank", "occurred_at"],
                condition=models.Q(mentions_time=True),
            ),
        ]
        ordering = ["-occurred_at", "-id"]

    def __str__(self) -> str:
        return f"episode {self.pk} in bank {self.bank_id}"


class EpisodeExtraction(models.Model):
    """When an episode was read for facts: ``extracted_at``, null while it waits (the extraction queue).

    Kept apart from the episode so that an episode row is written once. PostgreSQL updates a
    row in place only when its page has room for the new version and no indexed column
    changes; episode rows are about 2 KB (their vector), four to a page, so an update of one
    writes a new entry into each of the table's indexes, the HNSW graph included, and leaves
    a dead node in the graph until vacuum. The partial index holds only the episodes that wait:
    a bank's oldest are found there, not by walking the bank.
    """

    episode = models.OneToOneField(Episode, on_delete=models.CASCADE, primary_key=True, related_name="extraction")
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="+")
    recorded_at = models.DateTimeField()
    extracted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["bank", "recorded_at", "episode"],
                name="beliefs_extraction_waiting",
                condition=models.Q(extracted_at__isnull=True),
            )
        ]

    def __str__(self) -> str:
        return f"extraction of episode {self.episode_id}"
