"""The episode graph's insert effort (ef_construction) 128 -> 64, without rebuilding the graph.

pgvector reads ``ef_construction`` from the index's options at each insert, so ``ALTER INDEX ... SET`` changes
what every later insert costs (about half) and leaves the nodes already in the graph as they are. Django's state
records it as the index defined with the new value; the database is only altered, never rebuilt.
"""

import pgvector.django.indexes
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("beliefs", "0024_episode_bank_content_hash"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(model_name="episode", name="beliefs_episode_embedding_hnsw"),
                migrations.AddIndex(
                    model_name="episode",
                    index=pgvector.django.indexes.HnswIndex(
                        ef_construction=64,
                        fields=["embedding"],
                        m=16,
                        name="beliefs_episode_embedding_hnsw",
                        opclasses=["vector_cosine_ops"],
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    "ALTER INDEX beliefs_episode_embedding_hnsw SET (ef_construction = 64)",
                    reverse_sql="ALTER INDEX beliefs_episode_embedding_hnsw SET (ef_construction = 128)",
                ),
            ],
        ),
    ]
