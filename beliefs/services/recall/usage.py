"""Per-bank, per-day totals of recall budgets and the tokens actually used (what the overview charts)."""

from __future__ import annotations

from django.db import connection
from django.utils import timezone

from banks.models import Bank


def recall_usage_record(*, bank: Bank, tokens_used: int, budget_tokens: int) -> None:
    """Add one recall to today's totals for ``bank`` (one upsert; concurrent recalls add up, none is lost)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO beliefs_recallusageday (tenant_id, bank_id, day, recalls, tokens_used, budget_tokens) "
            "VALUES (%s, %s, %s, 1, %s, %s) ON CONFLICT (bank_id, day) DO UPDATE SET "
            "recalls = beliefs_recallusageday.recalls + 1, "
            "tokens_used = beliefs_recallusageday.tokens_used + EXCLUDED.tokens_used, "
            "budget_tokens = beliefs_recallusageday.budget_tokens + EXCLUDED.budget_tokens",
            [bank.tenant_id, bank.pk, timezone.now().date(), int(tokens_used), int(budget_tokens)],
        )
