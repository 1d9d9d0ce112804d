"""Row-level security for the workload and review tables (same policy as ``0007``)."""

from django.db import migrations

from beliefs.migrations._rls import disable, enable

TABLES = [
    "beliefs_triagedecision",
    "beliefs_intervention",
    "beliefs_outcomeevent",
    "beliefs_accountlink",
    "beliefs_play",
    "reviews_reviewitem",
]


class Migration(migrations.Migration):
    dependencies = [("beliefs", "0011_play_review_item"), ("reviews", "0002_workloads")]

    operations = [migrations.RunSQL(enable(table), reverse_sql=disable(table)) for table in TABLES]
