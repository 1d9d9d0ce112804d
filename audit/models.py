"""Audit events. The table kept its name (``reviews_auditevent``) when the model moved here.

Tenants and banks are referenced by name so the recording half of this app sits below
the access layer (``banks``), whose services record events too.
"""

from __future__ import annotations

from django.db import models


class AuditEvent(models.Model):
    """Who did what, when, from which request. Holds identifiers and counts, never memory content."""

    tenant = models.ForeignKey("banks.Tenant", on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey("banks.Bank", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    bank_slug = models.CharField(max_length=63, blank=True, default="", help_text="Kept when the bank is deleted.")
    actor = models.CharField(max_length=200)
    action = models.CharField(max_length=64)
    target = models.CharField(max_length=200, blank=True, default="")
    request_id = models.CharField(max_length=64, blank=True, default="")
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        db_table = "reviews_auditevent"
        indexes = [
            models.Index(name="reviews_audit_bank_created", fields=["bank", "-created_at"]),
            models.Index(name="reviews_audit_tenant_created", fields=["tenant", "-created_at"]),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.actor} {self.action} {self.target}"
