"""The audit and workload models moved apps with state-only migrations: a database from before keeps every row.

The database is filled with the demo and its workload records, then migrated back to
where the previous release left it (``AuditEvent`` in ``reviews``, the workload models in
``beliefs``) and forward again. Recall, beliefs, review items, audit events and the workload
answers are the same before and after, the tables never changed, and content types keep
their ids (permissions and admin log entries point at them).
"""

from __future__ import annotations

import io
from datetime import datetime

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection

from audit.models import AuditEvent
from banks.models import Bank
from beliefs.models import Belief
from beliefs.services.recall import recall
from memoryhub.tenancy import tenant_scope
from reviews.models import ReviewItem
from workloads.churn import account_link, play_upsert, recommend
from workloads.models import AccountLink, ChurnPlay, Intervention, OutcomeEvent, TriageDecision

MOVED = {
    "audit": (AuditEvent,),
    "workloads": (TriageDecision, ChurnPlay, Intervention, OutcomeEvent, AccountLink),
}
# Where the previous release left each app: the last migration before the moves.
PREVIOUS_RELEASE = [("workloads", "zero"), ("audit", "zero")]
AT = datetime.fromisoformat("2026-12-01T00:00:00+00:00")


def _answers(bank: Bank) -> dict:
    """What users read: recall, beliefs, review items, audit events and the workload answers."""
    with tenant_scope(bank.tenant_id):
        hits = recall(bank=bank, query="is the disk latency alert on db-01 benign?", budget_tokens=600)
        interventions = list(Intervention.objects.filter(bank=bank).order_by("id"))
        return {
            "recall": [(item.kind, item.item_id, item.text) for item in hits.items],
            "beliefs": list(
                Belief.objects.filter(bank=bank).order_by("id").values_list("statement", "status", "proof_count")
            ),
            "review_items": list(
                ReviewItem.objects.filter(bank=bank).order_by("id").values_list("kind", "status", "title", "triage_id")
            ),
            "audit": list(AuditEvent.objects.filter(tenant_id=bank.tenant_id).order_by("id").values_list("action")),
            "triage": list(
                TriageDecision.objects.filter(bank=bank).order_by("id").values_list("decision", "belief_id", "reasons")
            ),
            "churn": [recommend(bank=bank, account=i.account, segment=i.segment, now=AT) for i in interventions[:3]],
            "outcomes": list(
                OutcomeEvent.objects.filter(bank=bank).order_by("id").values_list("result", "intervention")
            ),
        }


def _content_types() -> dict[str, tuple[str, int]]:
    ContentType.objects.clear_cache()
    return {
        model._meta.model_name: (ct.app_label, ct.pk)
        for models in MOVED.values()
        for model in models
        for ct in ContentType.objects.filter(model=model._meta.model_name)
    }


def _table_rows() -> dict[str, int]:
    with connection.cursor() as cursor:
        counts = {}
        for models in MOVED.values():
            for model in models:
                cursor.execute(f"SELECT count(*) FROM {model._meta.db_table}")  # noqa: S608 - table names are ours
                counts[model._meta.db_table] = cursor.fetchone()[0]
    return counts


@pytest.mark.django_db(transaction=True)
def test_moving_models_between_apps_keeps_every_row_and_every_answer(settings, tmp_path, eager_tasks):
    settings.DATA_DIR = tmp_path
    call_command("seed_demo", stdout=io.StringIO())
    bank = Bank.objects.get(slug="ops")
    with tenant_scope(bank.tenant_id):  # the demo has no catalogue entry or account link: one of each
        play_upsert(bank=bank, name="training-session", horizon_days=60)
        account_link(bank=bank, account="initech", related_account="initrode", relation="parent")
    before, rows, types = _answers(bank), _table_rows(), _content_types()
    assert before["recall"] and before["beliefs"] and before["triage"] and before["churn"] and before["audit"]
    assert all(rows.values()), rows
    assert {app for app, _ in types.values()} == {"audit", "workloads"}
    try:
        for app, target in PREVIOUS_RELEASE:
            call_command("migrate", app, target, stdout=io.StringIO(), verbosity=0)
        # The previous release's state: the same tables and rows, content types under the old apps.
        assert _table_rows() == rows
        assert {name: app for name, (app, _) in _content_types().items()} == {
            "auditevent": "reviews",
            **{model._meta.model_name: "beliefs" for model in MOVED["workloads"]},
        }
    finally:
        call_command("migrate", stdout=io.StringIO(), verbosity=0)
    assert _table_rows() == rows
    assert _content_types() == types  # renamed back, never re-created: same ids
    assert _answers(bank) == before
