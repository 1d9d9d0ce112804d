"""Erasure requests, their receipts, and tombstones that keep an erased subject out."""

from __future__ import annotations

from django.db import models

from banks.models import Bank, Tenant


class ErasureRequest(models.Model):
    """A request to erase everything about one subject, in one bank or across the tenant.

    The ``receipt`` says what was removed or rebuilt (kinds and counts), when and by
    whom; it never holds erased content. ``subject`` is kept only as a hash once done, and
    ``aliases`` (names and identifiers whose mentions elsewhere are redacted) are cleared.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="erasure_requests")
    bank = models.ForeignKey(Bank, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    scope = models.CharField(max_length=8, choices=[("bank", "One bank"), ("tenant", "Every bank of the tenant")])
    subject = models.CharField(max_length=255, blank=True, default="", help_text="Cleared when the request is done.")
    subject_hash = models.CharField(max_length=64)
    aliases = models.JSONField(
        default=list, blank=True, help_text="Other names and identifiers of the subject; cleared when done."
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    requested_by = models.CharField(max_length=200, help_text="User name or API key prefix.")
    receipt = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(name="beliefs_erasure_tenant_created", fields=["tenant", "-created_at"])]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"erasure {self.pk} ({self.status})"


class Tombstone(models.Model):
    """A hashed subject that may not come back: retain skips items that name it."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    subject_hash = models.CharField(max_length=64)
    erasure = models.ForeignKey(ErasureRequest, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(name="beliefs_tombstone_lookup", fields=["tenant", "subject_hash"])]

    def __str__(self) -> str:
        return f"tombstone {self.subject_hash[:12]}…"
