"""The two database roles as deployed: requests and workers as the request role, maintenance as its own role."""

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured

from beliefs.services.retain import RetainItem, retain
from memoryhub.database import MAINTENANCE_ROLE, REQUEST_ROLE, database_settings
from tests.helpers.callers import make_caller
from tests.helpers.processes import run_django_snippet

PRODUCTION_PROCESS = """
import json, re, django
django.setup()
from django.core.management import call_command
from django.db import connection, connections
from django.test import Client
from django.utils import timezone
from django.contrib.auth import get_user_model
from beliefs.models import Episode
from beliefs.selectors.backlog import banks_with_backlog
from memoryhub.tenancy import rls_bypass, tenant_scope

def role(alias):
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT current_user")
        return cursor.fetchone()[0]

call_command("migrate", verbosity=0)  # must pick the maintenance alias: the request role may not migrate
out = {"default": role("default"), "maintenance": role("maintenance"), "unscoped": Episode.objects.count()}
with rls_bypass():
    out["bypass"] = sorted(Episode.objects.values_list("content", flat=True))
    out["backlog_banks"] = len(banks_with_backlog(older_than=timezone.now()))
with tenant_scope(TENANT_A):
    out["scoped"] = sorted(Episode.objects.values_list("content", flat=True))
client = Client()
client.force_login(get_user_model().objects.get(username="operator"))
page = client.get("/admin/beliefs/episode/")
out["admin_status"] = page.status_code
out["admin_rows"] = len(set(re.findall(r'href="/admin/beliefs/episode/(\\d+)/change/', page.content.decode())))
print(json.dumps(out))
"""


def test_an_external_database_needs_a_separate_maintenance_role(tmp_path):
    with pytest.raises(ImproperlyConfigured, match="MEMORYHUB_MAINTENANCE_DATABASE_URL"):
        database_settings(data_dir=tmp_path, database_url="postgres://app:pw@db:5432/memoryhub")
    with pytest.raises(ImproperlyConfigured, match="same role"):
        database_settings(
            data_dir=tmp_path,
            database_url="postgres://app:pw@db:5432/memoryhub",
            maintenance_url="postgres://app:pw@db:5432/memoryhub",
        )
    databases, roles = database_settings(
        data_dir=tmp_path,
        database_url="postgres://app:pw@db:5432/memoryhub",
        maintenance_url="postgres://owner:secret@db:5432/memoryhub",
    )
    assert (databases["default"]["USER"], databases["maintenance"]["USER"]) == ("app", "owner")
    assert roles["request"]["PASSWORD"] == "pw" and roles["maintenance"]["PASSWORD"] == "secret"
    tests, _ = database_settings(
        data_dir=tmp_path,
        database_url="postgres://app:pw@db:5432/memoryhub",
        maintenance_url="postgres://owner:secret@db:5432/memoryhub",
        connect_as="maintenance",
    )
    assert list(tests) == ["default"] and tests["default"]["USER"] == "owner"


@pytest.mark.django_db(transaction=True)
def test_production_processes_serve_as_the_request_role_and_maintain_as_the_maintenance_role():
    a, b = make_caller(), make_caller()
    retain(bank=a.bank, items=[RetainItem(content="alpha memory")])
    retain(bank=b.bank, items=[RetainItem(content="beta memory")])
    get_user_model().objects.create_superuser("operator", "operator@example.invalid", "pw-123456")
    out = run_django_snippet(
        PRODUCTION_PROCESS.replace("TENANT_A", str(a.tenant.pk)), MEMORYHUB_DB_CONNECT_AS="request"
    )
    assert out["default"] == settings.DATABASE_ROLES["request"]["USER"] == REQUEST_ROLE
    assert out["maintenance"] == MAINTENANCE_ROLE
    assert out["unscoped"] == 0  # the request role without a tenant sees nothing
    assert out["bypass"] == ["alpha memory", "beta memory"]  # maintenance sees every tenant
    assert out["backlog_banks"] == 2
    assert out["scoped"] == ["alpha memory"]
    assert out["admin_status"] == 200 and out["admin_rows"] >= 2
