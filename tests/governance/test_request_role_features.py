"""With least privilege, every feature that changes access still works as deployed: as the request role.

The test suite connects as the maintenance role and drops to the request role only inside a
request's tenant scope, so signing in, sessions and the writes that grant access would pass
here even if production refused them. This test starts a process with production settings
(``MEMORYHUB_DB_CONNECT_AS=request``) and goes through each: `make run`'s seeding, signing in
with a CSRF token, API keys in the dashboard and the API, members and roles, the key lifetime
setting, a password change, the staff page's break-glass and new tenant, signing out.
"""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from audit.models import AuditEvent
from banks.models import ApiKey, Membership
from memoryhub.celery import app
from tests.helpers.processes import run_django_snippet

PRODUCTION_FLOWS = """
import json, os, re, django
django.setup()
from pathlib import Path
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

settings.DATA_DIR = Path(SEED_DIR)  # seed_demo's key and password files (the database is the test database)
# MD5 first: fast here, and signing in re-hashes a password made with another hasher (as after a Django upgrade).
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher", *settings.PASSWORD_HASHERS]
out = {"role": connection.settings_dict["USER"]}
call_command("seed_demo", stdout=open(os.devnull, "w"))
out["seeded"] = True


def browser(username, password):
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/login/")
    answer = client.post("/accounts/login/", {"username": username, "password": password, "csrfmiddlewaretoken":
                                              client.cookies["csrftoken"].value})
    return client, answer.status_code


def post(client, path, data):
    return client.post(path, {**data, "csrfmiddlewaretoken": client.cookies["csrftoken"].value})


admin_password = (Path(SEED_DIR) / "demo-demo-admin-password").read_text().strip()
admin, out["login"] = browser("demo-admin", admin_password)
out["bad_login"] = browser("demo-admin", "wrong")[1]
keys_page = "/t/demo/api-keys/"
issued = post(admin, keys_page, {"action": "create", "name": "dash", "scopes": ["read", "write"], "expires": "30"})
out["key_issue"] = issued.status_code
raw = re.search(r'<code id="new-key">([^<]+)</code>', issued.content.decode()).group(1)
api = APIClient()
api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
out["dash_key_works"] = api.get("/api/v1/banks/ops/").status_code
prefix = raw.split("_")[1]
out["key_revoke"] = post(admin, keys_page, {"action": "revoke", "prefix": prefix}).status_code
out["dash_key_after_revoke"] = api.get("/api/v1/banks/ops/").status_code

demo_key = (Path(SEED_DIR) / "demo-api-key").read_text().strip()
parent = APIClient()
parent.credentials(HTTP_AUTHORIZATION=f"Bearer {demo_key}")
child = parent.post("/api/v1/api-keys/", {"name": "child", "scopes": ["read"]}, format="json")
out["api_issue"] = child.status_code
out["api_issue_by_key"] = child.json()["created_by_key"]
out["api_revoke"] = parent.delete(f"/api/v1/api-keys/{child.json()['prefix']}").status_code

members = "/t/demo/members/"
invited = post(admin, members, {"action": "add", "invited_as": "dana@example.com", "role": "member"})
out["invite"] = invited.status_code
link = re.search(r'<code id="invitation-link">([^<]+)</code>', invited.content.decode()).group(1)
invitee = Client(enforce_csrf_checks=True)
invitee.get(link)
dana_password = "dana-chose-this-one-42"
out["invitation_accepted"] = post(invitee, link, {"action": "create", "username": "dana", "email": "dana@example.com",
                                                  "password1": dana_password, "password2": dana_password}).status_code
from django.contrib.auth import get_user_model
dana_id = get_user_model().objects.get(username="dana").pk
out["bank_role"] = post(admin, "/t/demo/banks/ops/settings/members/",
                        {"action": "role", "user": dana_id, "role": "bank_admin"}).status_code
dana, out["dana_login"] = browser("dana", dana_password)
out["dana_bank_key"] = post(dana, "/t/demo/banks/ops/settings/api-keys/",
                            {"action": "create", "name": "dana-agent", "scopes": ["read", "write"]}).status_code
new_password = "a-much-longer-pass-42"
out["dana_password"] = post(dana, "/accounts/password/", {"old_password": dana_password, "new_password1": new_password,
                                                          "new_password2": new_password}).status_code
out["dana_new_password"] = browser("dana", new_password)[1]
out["member_remove"] = post(admin, members, {"action": "remove", "user": dana_id}).status_code
out["dana_after_removal"] = dana.get("/t/demo/").status_code
out["lifetime"] = post(admin, "/t/demo/settings/", {"action": "key-lifetime",
                                                    "max_api_key_lifetime_days": "30"}).status_code
too_long = parent.post("/api/v1/api-keys/", {"name": "long", "expires_at": "2099-01-01T00:00:00Z"}, format="json")
out["too_long"] = [too_long.status_code, too_long.json()["code"]]

operator, out["operator_login"] = browser("operator", "operator-password")
out["staff_page"] = operator.get("/staff/tenants/").status_code
from banks.models import Tenant
demo_id = Tenant.objects.get(slug="demo").pk
out["break_glass"] = post(operator, "/staff/tenants/", {"action": "join", "tenant": demo_id,
                                                         "reason": "ticket 42: customer asked for help"}).status_code
out["new_tenant"] = post(operator, "/staff/tenants/", {"action": "create", "slug": "globex", "name": "Globex",
                                                        "admin": "hank", "email": "hank@example.com",
                                                        "create": "on"}).status_code
out["logout"] = post(admin, "/accounts/logout/", {}).status_code
out["after_logout"] = admin.get("/t/demo/").status_code
with connection.cursor() as cursor:
    try:
        cursor.execute("SELECT count(*) FROM django_session")
        out["sessions_readable"] = True
    except Exception as exc:
        out["sessions_readable"] = type(exc).__name__
print(json.dumps(out))
"""


@pytest.mark.django_db(transaction=True)
def test_access_features_work_as_the_request_role(tmp_path):
    operator = get_user_model().objects.create_user("operator", password="operator-password", is_staff=True)
    operator.user_permissions.add(Permission.objects.get(codename="manage_tenants"))
    try:
        out = run_django_snippet(
            PRODUCTION_FLOWS.replace("SEED_DIR", repr(str(tmp_path))),
            MEMORYHUB_DB_CONNECT_AS="request",
            MEMORYHUB_EAGER_TASKS="0",  # as `make run`: seeding queues background work for workers (none here)
        )
    finally:
        app.control.purge()
    assert out == {
        "role": "memoryhub",
        "seeded": True,
        "login": 302,
        "bad_login": 200,
        "key_issue": 200,
        "dash_key_works": 200,
        "key_revoke": 302,
        "dash_key_after_revoke": 401,
        "api_issue": 201,
        "api_issue_by_key": out["api_issue_by_key"],
        "api_revoke": 204,
        "invite": 200,
        "invitation_accepted": 302,
        "bank_role": 302,
        "dana_login": 302,
        "dana_bank_key": 200,
        "dana_password": 302,
        "dana_new_password": 302,
        "member_remove": 302,
        "dana_after_removal": 404,
        "lifetime": 302,
        "too_long": [400, "api_key_lifetime_exceeded"],
        "operator_login": 302,
        "staff_page": 200,
        "break_glass": 302,
        "new_tenant": 200,
        "logout": 302,
        "after_logout": 302,
        "sessions_readable": "ProgrammingError",
    }
    demo_key = (tmp_path / "demo-api-key").read_text().strip()
    assert out["api_issue_by_key"] == demo_key.split("_")[1]
    dana_key = ApiKey.objects.get(name="dana-agent")
    assert dana_key.revoked_at is not None  # she left the tenant: the key she issued went with her
    assert Membership.objects.get(tenant__slug="demo", user=operator).role == "admin"
    glass = AuditEvent.objects.get(tenant__slug="demo", action="staff.break_glass")
    assert glass.actor == "user:operator" and glass.details["reason"] == "ticket 42: customer asked for help"
    assert Membership.objects.get(tenant__slug="globex").user.username == "hank"
    # Signing in re-hashed the operator's password with the process's preferred hasher: saved by the maintenance role.
    operator.refresh_from_db()
    assert operator.password.startswith("md5$")
