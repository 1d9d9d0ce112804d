"""Corpus statistics for keyword ranking (BM25 needs document frequencies per bank)."""

from __future__ import annotations

from django.db import models

from banks.models import Bank, Tenant


class BankTerm(models.Model):
    """How many episodes of a bank contain a full-text lexeme."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="+")
    lexeme = models.CharField(max_length=255)
    doc_count = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bank", "lexeme"], name="%(app_label)s_%(class)s_unique_bank_lexeme"),
        ]

    def __str__(self) -> str:
        return f"{self.lexeme}: {self.doc_count}"


class BankTextStats(models.Model):
    """Episode count and total lexemes of a bank (for BM25's average document length)."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    bank = models.OneToOneField(Bank, on_delete=models.CASCADE, related_name="text_stats")
    doc_count = models.IntegerField(default=0)
    lexeme_total = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"text stats of bank {self.bank_id}"
