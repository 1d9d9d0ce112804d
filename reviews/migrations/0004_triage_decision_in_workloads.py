"""``ReviewItem.triage`` points at ``workloads.TriageDecision`` (the model moved apps; the column stays)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('reviews', '0003_auditevent_to_audit_app'),
        ('workloads', '0001_workload_models_from_beliefs'),
    ]

    operations = [
        # State only: the column and its foreign key stay; the model it points at moved apps.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='reviewitem',
                    name='triage',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='workloads.triagedecision'),
                ),
            ],
            database_operations=[],
        ),
    ]
