"""M6: staff are held to their role. The staff page needs ``banks.manage_tenants`` (or superuser), an operator takes
a tenant role only by breaking glass with a reason the tenant sees, and the admin site's reads and changes of a
tenant's rows land in that tenant's audit log."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client

from audit.models import AuditEvent
from banks.models import Membership
from banks.services.api_keys import api_key_issue
from beliefs.models import Episode
from beliefs.services.retain import RetainItem, retain
from tests.helpers.callers import make_caller

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def staff_client(username: str, *codenames: str, superuser: bool = False) -> tuple:
    users = get_user_model().objects
    if superuser:
        user = users.create_superuser(username, f"{username}@example.invalid", "pw-123456")
    else:
        user = users.create_user(username, password="pw-123456", is_staff=True)
        user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return user, client


def test_is_staff_with_view_tenant_alone_cannot_make_itself_tenant_admin():
    """The review's attack: a support account with ``is_staff`` and only ``banks.view_tenant`` posts
    ``action=join&tenant=<id>``; it gets a 404 and no membership, and sees no staff link."""
    victim = make_caller()
    support, client = staff_client("support", "view_tenant")
    assert client.get("/staff/tenants/").status_code == 404
    assert client.post("/staff/tenants/", {"action": "join", "tenant": victim.tenant.pk}).status_code == 404
    joined = client.post("/staff/tenants/", {"action": "join", "tenant": victim.tenant.pk, "reason": "x" * 20})
    assert joined.status_code == 404
    assert not Membership.objects.filter(user=support).exists()
    assert not AuditEvent.objects.filter(tenant=victim.tenant).exists()
    assert "All tenants (staff)" not in client.get("/accounts/password/").content.decode()


def test_breaking_glass_needs_a_reason_and_the_tenants_audit_log_shows_it():
    victim = make_caller()
    operator, client = staff_client("operator", "manage_tenants")
    listing = client.get("/staff/tenants/").content.decode()
    assert f'aria-label="Break glass into {victim.tenant.name} as tenant admin"' in listing
    assert "All tenants (staff)" in listing
    silent = client.post("/staff/tenants/", {"action": "join", "tenant": victim.tenant.pk, "reason": "  "})
    assert silent.status_code == 400 and "This field is required." in silent.content.decode()
    short = client.post("/staff/tenants/", {"action": "join", "tenant": victim.tenant.pk, "reason": "because"})
    assert short.status_code == 400
    assert not Membership.objects.filter(user=operator).exists()
    reason = "INC-1234: the customer asked us to check their erasure"
    done = client.post("/staff/tenants/", {"action": "join", "tenant": victim.tenant.pk, "reason": reason})
    assert done.status_code == 302 and done["Location"] == f"/t/{victim.tenant.slug}/settings/"
    assert Membership.objects.get(tenant=victim.tenant, user=operator).role == "admin"
    events = list(AuditEvent.objects.filter(tenant=victim.tenant).order_by("id").values_list("action", "actor",
                                                                                            "details"))  # fmt: skip
    assert events == [
        ("staff.break_glass", "user:operator", {"reason": reason, "role": "admin"}),
        ("membership.set", "user:operator", {"role": "admin"}),
    ]
    # The tenant's own admins read it in their audit log.
    audit_page = client.get(f"/t/{victim.tenant.slug}/audit/").content.decode()
    assert "staff.break_glass" in audit_page and "INC-1234" in audit_page
    assert client.post("/staff/tenants/", {"action": "join", "tenant": 999999, "reason": reason}).status_code == 404


def test_superusers_keep_the_staff_page_but_name_someone_else_as_a_new_tenants_admin():
    root, client = staff_client("root", superuser=True)
    assert client.get("/staff/tenants/").status_code == 200
    himself = client.post("/staff/tenants/", {"slug": "mine", "name": "Mine", "admin": "root"})
    assert himself.status_code == 400 and "Name someone else as the first admin" in himself.content.decode()
    assert not Membership.objects.filter(user=root).exists()


def test_the_admin_site_audits_reads_of_tenant_memory_in_each_tenant_and_changes_none():
    """The review's second attack: a staff user with ``view_episode`` lists every tenant's episodes. The list and
    the detail page are written to the audit log of each tenant whose rows were shown; nothing can be changed."""
    a, b = make_caller(), make_caller()
    [a_episode] = [o.episode_id for o in retain(bank=a.bank, items=[RetainItem(content="acme renewal")]).outcomes]
    [b_episode] = [o.episode_id for o in retain(bank=b.bank, items=[RetainItem(content="acme churn")]).outcomes]
    _, client = staff_client("support", "view_episode")
    listing = client.get("/admin/beliefs/episode/?q=")
    assert listing.status_code == 200
    for caller, episode in ((a, a_episode), (b, b_episode)):
        viewed = AuditEvent.objects.get(tenant=caller.tenant, action="admin.viewed")
        assert viewed.actor == "user:support" and viewed.target == "admin:beliefs.episode"
        assert viewed.details == {"model": "beliefs.episode", "ids": [episode], "count": 1, "view": "list"}
    detail = client.get(f"/admin/beliefs/episode/{a_episode}/change/")
    assert detail.status_code == 200 and "acme renewal" in detail.content.decode()
    assert AuditEvent.objects.filter(tenant=a.tenant, action="admin.viewed", details__view="detail").count() == 1
    changed = client.post(f"/admin/beliefs/episode/{a_episode}/change/", {"content": "rewritten"})
    assert changed.status_code == 403
    _, root = staff_client("root", superuser=True)
    assert root.post(f"/admin/beliefs/episode/{a_episode}/delete/", {"post": "yes"}).status_code == 403
    assert root.get("/admin/beliefs/episode/add/").status_code == 403
    assert Episode.objects.get(pk=a_episode).content == "acme renewal"


def test_the_admin_site_revokes_keys_through_the_audited_service_and_grants_no_membership():
    caller = make_caller()
    root_user, root = staff_client("root", superuser=True)
    assert root.get("/admin/banks/apikey/add/").status_code == 403  # keys are issued where the secret is shown once
    key = api_key_issue(tenant=caller.tenant, name="ops-agent").api_key
    issued_by_key = api_key_issue(tenant=caller.tenant, name="child", created_by_key=caller.api_key).api_key
    assert issued_by_key.created_by_key_id == caller.api_key.pk
    revoked = root.post("/admin/banks/apikey/", {"action": "revoke", "_selected_action": [key.pk, caller.api_key.pk]})
    assert revoked.status_code == 302
    key.refresh_from_db()
    assert key.revoked_at is not None
    assert set(AuditEvent.objects.filter(tenant=caller.tenant, action="api_key.revoked", actor="user:root")
               .values_list("target", flat=True)) == {f"api_key:{k.prefix}" for k in (key, caller.api_key,
                                                                                     issued_by_key)}  # fmt: skip
    issued_by_key.refresh_from_db()
    assert issued_by_key.revoked_at is not None  # went with the key that issued it
    # Memberships are not granted in the admin site: the tenant's inline is read-only, a posted row is ignored.
    change = f"/admin/banks/tenant/{caller.tenant.pk}/change/"
    assert 'name="memberships-MAX_NUM_FORMS" value="0"' in root.get(change).content.decode()
    posted = root.post(change, {
        "name": caller.tenant.name, "max_api_key_lifetime_days": "",
        "memberships-TOTAL_FORMS": "1", "memberships-INITIAL_FORMS": "0", "memberships-MIN_NUM_FORMS": "0",
        "memberships-MAX_NUM_FORMS": "1000", "memberships-0-user": root_user.pk, "memberships-0-role": "admin",
        "memberships-0-tenant": caller.tenant.pk,
    })  # fmt: skip
    assert posted.status_code in (200, 302)
    assert not Membership.objects.filter(user=root_user).exists()
