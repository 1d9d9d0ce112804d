"""The workload models move here from ``beliefs``: state only; their tables, constraints and indexes stay.

Tables keep their ``beliefs_*`` names, and constraint names are pinned to the ones they
were created with. Content type rows are renamed (not re-created), so permissions and admin
log entries that point at them keep pointing at the same models.
"""

import django.db.models.deletion
from django.db import migrations, models

MODELS = ["accountlink", "churnplay", "intervention", "outcomeevent", "triagedecision"]


def rename_content_types(apps, schema_editor, old="beliefs", new="workloads"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.using(schema_editor.connection.alias).filter(app_label=old, model__in=MODELS).update(
        app_label=new
    )


def restore_content_types(apps, schema_editor):
    rename_content_types(apps, schema_editor, old="workloads", new="beliefs")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("banks", "0004_bank_vector_index"),
        ("beliefs", "0020_keyword_candidates"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Intervention',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('account', models.CharField(max_length=200)),
                        ('segment', models.CharField(max_length=100)),
                        ('play', models.CharField(max_length=100)),
                        ('occurred_at', models.DateTimeField(help_text='When the play was offered (the window opens).')),
                        ('horizon_days', models.PositiveIntegerField()),
                        ('horizon_source', models.CharField(choices=[('intervention', 'Set on the intervention'), ('play', "The play's catalogue horizon"), ('bank', "The bank's default horizon")], default='bank', max_length=16)),
                        ('horizon_closes_at', models.DateTimeField(help_text='`occurred_at` + `horizon_days`.')),
                        ('outcome', models.CharField(choices=[('pending', 'Pending'), ('retained', 'Retained'), ('churned', 'Churned'), ('unknown', 'Unknown')], default='pending', help_text='As last scored; `recommend` recomputes the state at its own `now`.', max_length=16)),
                        ('outcome_known_at', models.DateTimeField(blank=True, help_text='When the outcome started to count.', null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('bank', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='interventions', to='banks.bank')),
                        ('episode', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='beliefs.episode')),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='banks.tenant')),
                    ],
                    options={
                        'db_table': 'beliefs_intervention',
                    },
                ),
                migrations.CreateModel(
                    name='OutcomeEvent',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('account', models.CharField(max_length=200)),
                        ('result', models.CharField(choices=[('retained', 'Retained'), ('churned', 'Churned'), ('unknown', 'Unknown')], max_length=16)),
                        ('occurred_at', models.DateTimeField(help_text='When it happened (the effective time).')),
                        ('recorded_at', models.DateTimeField(help_text='When it was reported; it counts from then at the earliest.')),
                        ('event_id', models.CharField(max_length=128)),
                        ('attribution', models.CharField(choices=[('named', 'Named by the caller'), ('window', 'By the window rule'), ('none', "No intervention's window contains it")], default='none', max_length=16)),
                        ('counts_from', models.DateTimeField(blank=True, help_text='The later of the horizon close and `recorded_at` (null: unattributed).', null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('bank', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='banks.bank')),
                        ('intervention', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='outcomes', to='workloads.intervention')),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='banks.tenant')),
                    ],
                    options={
                        'db_table': 'beliefs_outcomeevent',
                    },
                ),
                migrations.AddField(
                    model_name='intervention',
                    name='outcome_event',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='workloads.outcomeevent'),
                ),
                migrations.CreateModel(
                    name='TriageDecision',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('signature', models.CharField(max_length=200)),
                        ('target', models.CharField(help_text="The pattern's key under the bank's `anomaly.key`.", max_length=200)),
                        ('host', models.CharField(blank=True, default='', max_length=200)),
                        ('service', models.CharField(blank=True, default='', max_length=200)),
                        ('value', models.FloatField(blank=True, null=True)),
                        ('decided_at', models.DateTimeField(help_text="The triage's `now` (event time, replayable).")),
                        ('decision', models.CharField(choices=[('suppress', 'Suppress'), ('investigate', 'Investigate')], max_length=16)),
                        ('belief_status', models.CharField(blank=True, default='', help_text="The belief's status as assessed at `decided_at`.", max_length=16)),
                        ('proof_count', models.PositiveIntegerField(default=0, help_text="The belief's proof count at `decided_at`.")),
                        ('confidence', models.FloatField(default=0.0)),
                        ('reasons', models.JSONField(blank=True, default=list)),
                        ('citations', models.JSONField(blank=True, default=list)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('bank', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='triage_decisions', to='banks.bank')),
                        ('belief', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='beliefs.belief')),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='banks.tenant')),
                    ],
                    options={
                        'db_table': 'beliefs_triagedecision',
                    },
                ),
                migrations.CreateModel(
                    name='AccountLink',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('account', models.CharField(max_length=200)),
                        ('related_account', models.CharField(max_length=200)),
                        ('relation', models.CharField(max_length=64)),
                        ('bank', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='banks.bank')),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='banks.tenant')),
                    ],
                    options={
                        'db_table': 'beliefs_accountlink',
                        'constraints': [models.UniqueConstraint(fields=('bank', 'account', 'related_account', 'relation'), name='beliefs_accountlink_unique_edge')],
                    },
                ),
                migrations.CreateModel(
                    name='ChurnPlay',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=100)),
                        ('horizon_days', models.PositiveIntegerField()),
                        ('description', models.TextField(blank=True, default='')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('bank', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='churn_plays', to='banks.bank')),
                        ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='banks.tenant')),
                    ],
                    options={
                        'db_table': 'beliefs_churnplay',
                        'constraints': [models.UniqueConstraint(fields=('bank', 'name'), name='beliefs_churnplay_unique_bank_name'), models.CheckConstraint(condition=models.Q(('horizon_days__gte', 30), ('horizon_days__lte', 180)), name='beliefs_churnplay_horizon_range')],
                    },
                ),
                migrations.AddIndex(
                    model_name='outcomeevent',
                    index=models.Index(fields=['bank', 'account', 'occurred_at'], name='beliefs_outcome_account_time'),
                ),
                migrations.AddIndex(
                    model_name='outcomeevent',
                    index=models.Index(fields=['bank', 'counts_from'], name='beliefs_outcome_counts_from'),
                ),
                migrations.AddConstraint(
                    model_name='outcomeevent',
                    constraint=models.UniqueConstraint(fields=('bank', 'event_id'), name='beliefs_outcomeevent_unique_event'),
                ),
                migrations.AddConstraint(
                    model_name='outcomeevent',
                    constraint=models.UniqueConstraint(fields=('intervention',), name='beliefs_outcomeevent_one_per_intervention'),
                ),
                migrations.AddIndex(
                    model_name='intervention',
                    index=models.Index(fields=['bank', 'account'], name='beliefs_intervention_account'),
                ),
                migrations.AddIndex(
                    model_name='intervention',
                    index=models.Index(fields=['bank', 'segment', 'play', 'outcome'], name='beliefs_intervention_segment'),
                ),
                migrations.AddConstraint(
                    model_name='intervention',
                    constraint=models.UniqueConstraint(fields=('bank', 'account', 'play', 'occurred_at'), name='beliefs_intervention_unique_offer'),
                ),
                migrations.AddIndex(
                    model_name='triagedecision',
                    index=models.Index(fields=['bank', '-decided_at'], name='beliefs_triage_bank_time'),
                ),
                migrations.AddConstraint(
                    model_name='triagedecision',
                    constraint=models.CheckConstraint(condition=models.Q(models.Q(('decision', 'suppress'), _negated=True), ('belief_status', 'active'), _connector='OR'), name='beliefs_triagedecision_suppress_needs_active_belief'),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(rename_content_types, restore_content_types),
    ]
