"""Workload tasks: thin wrappers around services (the rules are in ``beliefs.tasks``)."""

from __future__ import annotations

from celery import shared_task

from banks.models import Bank
from memoryhub.queues import TASK_OPTIONS
from memoryhub.tenancy import rls_bypass, tenant_scope
from workloads.churn import interventions_score
from workloads.models import Intervention


# The name it had in ``beliefs.tasks``: the beat schedule and messages already queued use it.
@shared_task(name="beliefs.tasks.score_interventions_task", **TASK_OPTIONS)
def score_interventions_task() -> dict:
    """Hourly: score every churn intervention whose outcome horizon has closed, bank by bank."""
    with rls_bypass():
        bank_ids = sorted(set(Intervention.objects.filter(outcome="pending").values_list("bank_id", flat=True)))
    scored = 0
    for bank in Bank.objects.filter(pk__in=bank_ids):
        with tenant_scope(bank.tenant_id):
            scored += interventions_score(bank=bank)
    return {"scored": scored, "banks": len(bank_ids)}
