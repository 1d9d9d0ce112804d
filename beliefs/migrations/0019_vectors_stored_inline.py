"""Keep embeddings inside their rows (``STORAGE MAIN``) instead of out of line in TOAST.

A row larger than about 2 kB is shrunk by moving its widest values to the TOAST table,
and a 384-dimension vector (1.5 kB, incompressible) is usually the widest: an episode
with a few hundred characters of content lost its embedding to TOAST, so every distance
an exact scan or the re-rank of an index walk computed first fetched it from there (two
buffer reads per row, about twice the time of a scan over inline vectors). With ``MAIN``
the content, search vector and metadata move out first; a vector leaves only a row that
would still not fit. The setting applies to rows written from now on; ``VACUUM FULL`` (or
any rewrite) moves existing ones.
"""

from django.db import migrations

COLUMNS = [
    ("beliefs_episode", "embedding"),
    ("beliefs_belief", "embedding"),
    ("beliefs_fact", "embedding"),
    ("beliefs_play", "embedding"),
    ("beliefs_mentalmodel", "question_embedding"),
]


def storage(mode: str) -> str:
    return "\n".join(f"ALTER TABLE {table} ALTER COLUMN {column} SET STORAGE {mode};" for table, column in COLUMNS)


class Migration(migrations.Migration):
    dependencies = [
        ("beliefs", "0018_keyword_matches"),
    ]

    operations = [migrations.RunSQL(storage("MAIN"), reverse_sql=storage("EXTENDED"))]
