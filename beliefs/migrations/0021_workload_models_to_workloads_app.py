"""The workload models now belong to the ``workloads`` app (state only: their tables stay as they are)."""

from django.db import migrations

MOVED = ["AccountLink", "ChurnPlay", "Intervention", "OutcomeEvent", "TriageDecision"]


class Migration(migrations.Migration):
    dependencies = [
        ("beliefs", "0020_keyword_candidates"),
        ("reviews", "0004_triage_decision_in_workloads"),
        ("workloads", "0001_workload_models_from_beliefs"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                # Foreign keys between the moved models first, so each model can go on its own.
                migrations.RemoveField(model_name="intervention", name="outcome_event"),
                migrations.RemoveField(model_name="outcomeevent", name="intervention"),
                *[migrations.DeleteModel(name=name) for name in MOVED],
            ],
            database_operations=[],
        ),
    ]
