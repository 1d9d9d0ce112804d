"""A bank's LLM spending: the monthly token cap every LLM call checks, and the usage each call records.

Extraction and reflect both send bank memory to the configured model. Each asks
``llm_under_cap`` before a call and records the call with ``llm_usage_record`` after it,
so ``llm.monthly_token_cap`` (``banks.policy``) bounds what the bank spends in a calendar
month whichever feature spends it.
"""

from __future__ import annotations

from datetime import date

from django.db.models import F
from django.utils import timezone

from banks.models import Bank
from banks.policy import BankPolicy
from beliefs.models import BankUsage


def usage_period() -> date:
    """The first day of the current month: the period ``BankUsage`` rows count."""
    return timezone.now().date().replace(day=1)


def llm_under_cap(*, bank: Bank, policy: BankPolicy) -> bool:
    """Whether ``bank`` may make another LLM call this month (always, without a cap)."""
    if policy.llm_monthly_token_cap is None:
        return True
    usage = BankUsage.objects.filter(bank=bank, period=usage_period()).first()
    spent = (usage.llm_tokens_in + usage.llm_tokens_out) if usage else 0
    return spent < policy.llm_monthly_token_cap


def llm_usage_record(*, bank: Bank, calls: int, failures: int = 0, tokens_in: int = 0, tokens_out: int = 0) -> None:
    """Add one or more LLM calls of ``bank`` to this month's ``BankUsage`` row."""
    usage, _ = BankUsage.objects.get_or_create(bank=bank, period=usage_period(), defaults={"tenant_id": bank.tenant_id})
    BankUsage.objects.filter(pk=usage.pk).update(
        llm_calls=F("llm_calls") + calls,
        llm_failures=F("llm_failures") + failures,
        llm_tokens_in=F("llm_tokens_in") + tokens_in,
        llm_tokens_out=F("llm_tokens_out") + tokens_out,
    )
