"""Queued work lives in PostgreSQL; the broker only carries the row id."""

from __future__ import annotations

from django.db import models

from banks.models import Bank, Tenant


class RetainBatch(models.Model):
    """One retain call. Its ``idempotency_key`` is unique per bank, so a retried request
    or a twice-delivered task finds the same row instead of writing twice.

    Asynchronous batches keep their validated ``items`` here until a worker stores them;
    the items are cleared once the episodes exist, so content is not kept twice.
    """

    class Mode(models.TextChoices):
        SYNC = "sync", "Synchronous"
        ASYNC = "async", "Asynchronous"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        PROCESSING = "processing", "Processing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="retain_batches")
    idempotency_key = models.CharField(max_length=160)
    request_hash = models.CharField(max_length=64)
    mode = models.CharField(max_length=8, choices=Mode.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    items = models.JSONField(default=list, blank=True)
    item_count = models.PositiveIntegerField(default=0)
    created_count = models.PositiveIntegerField(default=0)
    duplicate_count = models.PositiveIntegerField(default=0)
    results = models.JSONField(default=list, blank=True, help_text="Per item: episode id and created/duplicate.")
    usage = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    attempts = models.PositiveIntegerField(default=0)
    extraction_status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bank", "idempotency_key"], name="%(app_label)s_%(class)s_unique_bank_idempotency_key"
            ),
        ]
        indexes = [models.Index(name="beliefs_batch_status_created", fields=["status", "created_at"])]

    def __str__(self) -> str:
        return f"retain batch {self.pk} ({self.status})"


class DefenseRescan(models.Model):
    """A re-scan of what a bank already stores, after its Memory Defense policy tightened.

    Progress is visible while it runs; the counts say what was redacted (kinds, never values).
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="defense_rescans")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    total = models.PositiveIntegerField(default=0)
    scanned = models.PositiveIntegerField(default=0)
    last_episode_id = models.BigIntegerField(default=0, help_text="Resume point: episodes up to this id are done.")
    redacted_episodes = models.PositiveIntegerField(default=0)
    kinds = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"defense rescan {self.pk} of bank {self.bank_id} ({self.scanned}/{self.total})"
