"""Churn: per-play horizons (a play catalogue), outcomes attributed to one intervention with their report time;
anomaly: the pattern's parts and the belief's status on every triage decision.

Existing rows are backfilled: horizon close = offer + horizon, an outcome's report time = when it was stored,
each outcome attributed by the window rule (30 days' grace), and past suppressions marked as resting on an
active belief (the only kind that could suppress).
"""

import django.db.models.deletion
from django.db import migrations, models

from beliefs.migrations._rls import disable, enable


BACKFILL = """
UPDATE beliefs_intervention SET horizon_closes_at = occurred_at + horizon_days * interval '1 day';
UPDATE beliefs_outcomeevent SET recorded_at = created_at;
UPDATE beliefs_triagedecision SET belief_status = 'active' WHERE decision = 'suppress';
WITH candidates AS (
    SELECT DISTINCT ON (o.id) o.id AS outcome_id, i.id AS intervention_id,
           GREATEST(i.horizon_closes_at, o.recorded_at) AS counts_from
    FROM beliefs_outcomeevent o
    JOIN beliefs_intervention i
      ON i.bank_id = o.bank_id AND i.account = o.account
     AND o.occurred_at >= i.occurred_at AND o.occurred_at <= i.horizon_closes_at + interval '30 days'
    ORDER BY o.id, i.occurred_at DESC, i.id DESC
), firsts AS (
    SELECT DISTINCT ON (intervention_id) * FROM candidates ORDER BY intervention_id, outcome_id
)
UPDATE beliefs_outcomeevent o
SET intervention_id = f.intervention_id, attribution = 'window', counts_from = f.counts_from
FROM firsts f WHERE o.id = f.outcome_id;
"""


class Migration(migrations.Migration):

    dependencies = [
        ('banks', '0002_api_key_scopes_expiry_limits'),
        ('beliefs', '0013_maintenance_role'),
    ]

    operations = [
        migrations.CreateModel(
            name='ChurnPlay',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100)),
                ('horizon_days', models.PositiveIntegerField()),
                ('description', models.TextField(blank=True, default='')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
            ],
        ),
        migrations.AddField(
            model_name='intervention',
            name='horizon_closes_at',
            field=models.DateTimeField(help_text='`occurred_at` + `horizon_days`.', null=True),
        ),
        migrations.AddField(
            model_name='intervention',
            name='horizon_source',
            field=models.CharField(choices=[('intervention', 'Set on the intervention'), ('play', "The play's catalogue horizon"), ('bank', "The bank's default horizon")], default='bank', max_length=16),
        ),
        migrations.AddField(
            model_name='intervention',
            name='outcome_event',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='beliefs.outcomeevent'),
        ),
        migrations.AddField(
            model_name='outcomeevent',
            name='attribution',
            field=models.CharField(choices=[('named', 'Named by the caller'), ('window', 'By the window rule'), ('none', "No intervention's window contains it")], default='none', max_length=16),
        ),
        migrations.AddField(
            model_name='outcomeevent',
            name='counts_from',
            field=models.DateTimeField(blank=True, help_text='The later of the horizon close and `recorded_at` (null: unattributed).', null=True),
        ),
        migrations.AddField(
            model_name='outcomeevent',
            name='intervention',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='outcomes', to='beliefs.intervention'),
        ),
        migrations.AddField(
            model_name='outcomeevent',
            name='recorded_at',
            field=models.DateTimeField(help_text='When it was reported; it counts from then at the earliest.', null=True),
        ),
        migrations.AddField(
            model_name='triagedecision',
            name='belief_status',
            field=models.CharField(blank=True, default='', help_text="The belief's status as assessed at `decided_at`.", max_length=16),
        ),
        migrations.AddField(
            model_name='triagedecision',
            name='host',
            field=models.CharField(blank=True, default='', max_length=200),
        ),
        migrations.AddField(
            model_name='triagedecision',
            name='service',
            field=models.CharField(blank=True, default='', max_length=200),
        ),
        migrations.RunSQL(BACKFILL, reverse_sql=migrations.RunSQL.noop),
        migrations.AlterField(
            model_name='intervention',
            name='horizon_closes_at',
            field=models.DateTimeField(help_text='`occurred_at` + `horizon_days`.'),
        ),
        migrations.AlterField(
            model_name='outcomeevent',
            name='recorded_at',
            field=models.DateTimeField(help_text='When it was reported; it counts from then at the earliest.'),
        ),
        migrations.AlterField(
            model_name='intervention',
            name='occurred_at',
            field=models.DateTimeField(help_text='When the play was offered (the window opens).'),
        ),
        migrations.AlterField(
            model_name='intervention',
            name='outcome',
            field=models.CharField(choices=[('pending', 'Pending'), ('retained', 'Retained'), ('churned', 'Churned'), ('unknown', 'Unknown')], default='pending', help_text='As last scored; `recommend` recomputes the state at its own `now`.', max_length=16),
        ),
        migrations.AlterField(
            model_name='intervention',
            name='outcome_known_at',
            field=models.DateTimeField(blank=True, help_text='When the outcome started to count.', null=True),
        ),
        migrations.AlterField(
            model_name='outcomeevent',
            name='occurred_at',
            field=models.DateTimeField(help_text='When it happened (the effective time).'),
        ),
        migrations.AlterField(
            model_name='outcomeevent',
            name='result',
            field=models.CharField(choices=[('retained', 'Retained'), ('churned', 'Churned'), ('unknown', 'Unknown')], max_length=16),
        ),
        migrations.AlterField(
            model_name='triagedecision',
            name='proof_count',
            field=models.PositiveIntegerField(default=0, help_text="The belief's proof count at `decided_at`."),
        ),
        migrations.AlterField(
            model_name='triagedecision',
            name='target',
            field=models.CharField(help_text="The pattern's key under the bank's `anomaly.key`.", max_length=200),
        ),
        migrations.AddIndex(
            model_name='outcomeevent',
            index=models.Index(fields=['bank', 'counts_from'], name='beliefs_outcome_counts_from'),
        ),
        migrations.AddConstraint(
            model_name='outcomeevent',
            constraint=models.UniqueConstraint(fields=('intervention',), name='beliefs_outcomeevent_one_per_intervention'),
        ),
        migrations.AddConstraint(
            model_name='triagedecision',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('decision', 'suppress'), _negated=True), ('belief_status', 'active'), _connector='OR'), name='beliefs_triagedecision_suppress_needs_active_belief'),
        ),
        migrations.AddField(
            model_name='churnplay',
            name='bank',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='churn_plays', to='banks.bank'),
        ),
        migrations.AddField(
            model_name='churnplay',
            name='tenant',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='banks.tenant'),
        ),
        migrations.AddConstraint(
            model_name='churnplay',
            constraint=models.UniqueConstraint(fields=('bank', 'name'), name='beliefs_churnplay_unique_bank_name'),
        ),
        migrations.AddConstraint(
            model_name='churnplay',
            constraint=models.CheckConstraint(condition=models.Q(('horizon_days__gte', 30), ('horizon_days__lte', 180)), name='beliefs_churnplay_horizon_range'),
        ),
        migrations.RunSQL(enable('beliefs_churnplay'), reverse_sql=disable('beliefs_churnplay')),
    ]
