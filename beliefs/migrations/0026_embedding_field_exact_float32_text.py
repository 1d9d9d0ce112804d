"""The embedding columns write their values through ``EmbeddingField`` (nine significant digits, one format a
vector). Same column type and indexes: the database is not altered."""

from django.db import migrations

import beliefs.models.embedding_field


class Migration(migrations.Migration):
    dependencies = [
        ("beliefs", "0025_episode_graph_insert_effort"),
    ]

    operations = [
        migrations.AlterField(
            model_name="belief",
            name="embedding",
            field=beliefs.models.embedding_field.EmbeddingField(dimensions=384),
        ),
        migrations.AlterField(
            model_name="episode",
            name="embedding",
            field=beliefs.models.embedding_field.EmbeddingField(dimensions=384),
        ),
        migrations.AlterField(
            model_name="play",
            name="embedding",
            field=beliefs.models.embedding_field.EmbeddingField(dimensions=384),
        ),
    ]
