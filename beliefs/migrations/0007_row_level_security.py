"""Row-level security on every bank-owned table (see ``memoryhub.tenancy``).

A row is visible only to a session whose ``app.tenant_id`` matches its ``tenant_id``,
or to maintenance sessions with ``app.rls_bypass = on``. FORCE makes the policy apply
to the table owner too: the application role owns these tables and is not a superuser.
"""

from django.db import migrations

from beliefs.migrations._rls import disable, enable

RLS_TABLES = [
    "beliefs_episode",
    "beliefs_retainbatch",
    "beliefs_entity",
    "beliefs_episodeentity",
    "beliefs_bankterm",
    "beliefs_banktextstats",
    "beliefs_fact",
    "beliefs_belief",
    "beliefs_evidence",
    "beliefs_beliefversion",
    "beliefs_mentalmodel",
    "beliefs_bankusage",
    "beliefs_erasurerequest",
    "beliefs_tombstone",
    "reviews_auditevent",
]
class Migration(migrations.Migration):
    dependencies = [
        ("beliefs", "0006_injection_flags_echo_quarantine"),
        ("reviews", "0001_audit_events"),
    ]

    operations = [migrations.RunSQL(enable(table), reverse_sql=disable(table)) for table in RLS_TABLES]
