# Retain checks every agent-written item against the bank's texts by hash (an echo of recall); without an index
# that read every row of the bank: 16 ms of PostgreSQL per retain in a bank of 26,000 episodes.
# Built concurrently so that retains go on while it builds on a large table.

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("beliefs", "0023_episode_extraction"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="episode",
            index=models.Index(fields=["bank", "content_hash"], name="beliefs_episode_bank_content"),
        ),
    ]
