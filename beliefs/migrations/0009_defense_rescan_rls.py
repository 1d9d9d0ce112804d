"""Row-level security for the defense re-scan jobs (same policy as ``0007``)."""

from django.db import migrations

from beliefs.migrations._rls import disable, enable


class Migration(migrations.Migration):
    dependencies = [("beliefs", "0008_defense_rescans")]

    operations = [migrations.RunSQL(enable("beliefs_defenserescan"), reverse_sql=disable("beliefs_defenserescan"))]
