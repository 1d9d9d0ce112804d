"""``AuditEvent`` now belongs to the ``audit`` app (state only: the table ``reviews_auditevent`` stays)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0001_auditevent_from_reviews"),
        ("reviews", "0002_workloads"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="AuditEvent")], database_operations=[]),
    ]
