# An episode's extraction state moves to a table of its own: marking an episode extracted on its own row
# rewrote every index entry of a 2 KB row (the HNSW graph's included) and left a dead graph node behind.

import django.db.models.deletion
from django.db import migrations, models

from beliefs.migrations._rls import disable, enable

COPY = (
    "INSERT INTO beliefs_episodeextraction (episode_id, tenant_id, bank_id, recorded_at, extracted_at)"
    " SELECT id, tenant_id, bank_id, recorded_at, extracted_at FROM beliefs_episode"
)
COPY_BACK = (
    "UPDATE beliefs_episode e SET extracted_at = x.extracted_at"
    " FROM beliefs_episodeextraction x WHERE x.episode_id = e.id"
)


class Migration(migrations.Migration):
    dependencies = [
        ("banks", "0007_identity_writes_through_owner_functions"),
        ("beliefs", "0022_tombstone_key"),
    ]

    operations = [
        migrations.CreateModel(
            name="EpisodeExtraction",
            fields=[
                (
                    "episode",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="extraction",
                        serialize=False,
                        to="beliefs.episode",
                    ),
                ),
                ("recorded_at", models.DateTimeField()),
                ("extracted_at", models.DateTimeField(blank=True, null=True)),
                (
                    "bank",
                    models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to="banks.bank"),
                ),
                (
                    "tenant",
                    models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to="banks.tenant"),
                ),
            ],
            options={
                "indexes": [
                    models.Index(
                        condition=models.Q(("extracted_at__isnull", True)),
                        fields=["bank", "recorded_at", "episode"],
                        name="beliefs_extraction_waiting",
                    )
                ],
            },
        ),
        migrations.RunSQL(enable("beliefs_episodeextraction"), reverse_sql=disable("beliefs_episodeextraction")),
        migrations.RunSQL(COPY, reverse_sql=COPY_BACK),
        migrations.RemoveField(
            model_name="episode",
            name="extracted_at",
        ),
    ]
