"""``AuditEvent`` moves here from ``reviews``: state only, the table and its indexes stay as they are.

The content type row is renamed (not re-created), so permissions and admin log entries that
point at it keep pointing at the same model.
"""

import django.db.models.deletion
from django.db import migrations, models


def rename_content_type(apps, schema_editor, old="reviews", new="audit"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.using(schema_editor.connection.alias).filter(app_label=old, model="auditevent").update(
        app_label=new
    )


def restore_content_type(apps, schema_editor):
    rename_content_type(apps, schema_editor, old="audit", new="reviews")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("banks", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("reviews", "0002_workloads"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("bank_slug", models.CharField(blank=True, default="", help_text="Kept when the bank is deleted.", max_length=63)),
                        ("actor", models.CharField(max_length=200)),
                        ("action", models.CharField(max_length=64)),
                        ("target", models.CharField(blank=True, default="", max_length=200)),
                        ("request_id", models.CharField(blank=True, default="", max_length=64)),
                        ("details", models.JSONField(blank=True, default=dict)),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("bank", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to="banks.bank")),
                        ("tenant", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to="banks.tenant")),
                    ],
                    options={
                        "db_table": "reviews_auditevent",
                        "ordering": ["-created_at", "-id"],
                        "indexes": [
                            models.Index(fields=["bank", "-created_at"], name="reviews_audit_bank_created"),
                            models.Index(fields=["tenant", "-created_at"], name="reviews_audit_tenant_created"),
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(rename_content_type, restore_content_type),
    ]
