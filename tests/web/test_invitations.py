"""People join a tenant by accepting an invitation; secrets are shown once and kept nowhere; first passwords
pass the validators and must be replaced at first sign-in."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model, password_validation
from django.test import Client

from audit.models import AuditEvent
from banks.models import Invitation, Membership, PasswordChangeRequired
from banks.permissions import Role
from tests.helpers.builders import bank_path

LINK = re.compile(r'<code id="invitation-link">([^<]+)</code>')
STRONG = "quiet-lantern-meadow-73"


def tenant_path(ops, path: str = "") -> str:
    return f"/t/{ops.tenant.slug}/{path}"


def invite(client, ops, invited_as: str, role: str = "member"):
    response = client.post(tenant_path(ops, "members/"), {"action": "add", "invited_as": invited_as, "role": role})
    assert response.status_code == 200, response.content.decode()[:500]
    return response, LINK.search(response.content.decode()).group(1)


def secrets_kept(client, secret: str) -> bool:
    """Whether ``secret`` is anywhere in the client's session (the database row) or its cookies."""
    return secret in str(dict(client.session.items())) or any(secret in c.value for c in client.cookies.values())


def test_the_invite_form_says_the_same_whether_or_not_an_account_exists(client_as, ops):
    get_user_model().objects.create_user("existing-person", email="existing@example.com")
    admin = client_as(Role.TENANT_ADMIN)
    answers = {}
    for name in ("existing-person", "nobody-by-this-name", "existing@example.com", "nobody@example.com"):
        response, link = invite(admin, ops, name)
        body = response.content.decode()
        card = body[body.index('<section class="card secret-card"') :]
        card = card[: card.index("</section>")].replace(link, "LINK").replace(name, "NAME")
        answers[name] = (response.status_code, re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "TIME", card))
        assert 'role="alert"' not in body and "account" not in card.lower().replace("their account", "")
    assert len(set(answers.values())) == 1  # the same answer, but for the link and the name typed
    assert Membership.objects.filter(tenant=ops.tenant).count() == 4  # nobody joined without accepting
    assert Invitation.objects.filter(tenant=ops.tenant, accepted_at__isnull=True).count() == 4


def test_an_invitation_link_is_shown_once_and_kept_nowhere(client_as, ops):
    admin = client_as(Role.TENANT_ADMIN)
    response, link = invite(admin, ops, "dana@example.com")
    token = link.rsplit("/", 2)[-2]
    assert response["Cache-Control"].startswith("no-store") and response["Pragma"] == "no-cache"
    assert not secrets_kept(admin, token)
    assert not Invitation.objects.filter(token_hash=token).exists()  # only its digest is stored
    again = admin.get(tenant_path(ops, "members/")).content.decode()
    assert token not in again and "dana@example.com" in again  # listed as waiting, without the link


def test_an_existing_account_joins_only_by_accepting(client_as, ops):
    admin = client_as(Role.TENANT_ADMIN)
    _, link = invite(admin, ops, "erin", role="admin")
    erin = get_user_model().objects.create_user("erin")
    invitee = Client()
    invitee.force_login(erin)
    page = invitee.get(link)
    assert page.status_code == 200 and "Join Acme Operations" in page.content.decode()
    assert page["Cache-Control"].startswith("no-store")
    assert not Membership.objects.filter(tenant=ops.tenant, user=erin).exists()
    joined = invitee.post(link, {"action": "accept"})
    assert joined.status_code == 302 and joined["Location"] == tenant_path(ops)
    assert Membership.objects.get(tenant=ops.tenant, user=erin).role == "admin"
    assert invitee.post(link, {"action": "accept"}).status_code == 404  # once only
    stranger = Client()
    stranger.force_login(get_user_model().objects.create_user("mallory"))
    assert stranger.get(link).status_code == 404
    actions = set(AuditEvent.objects.filter(tenant=ops.tenant).values_list("action", "actor"))
    assert {("invitation.accepted", "user:erin"), ("membership.set", "user:erin")} <= actions
    assert ("invitation.created", f"user:{ops.users[Role.TENANT_ADMIN].username}") in actions


def test_a_new_person_creates_an_account_with_a_valid_password_and_joins(client_as, ops):
    _, link = invite(client_as(Role.TENANT_ADMIN), ops, "frank@example.com")
    invitee = Client()
    assert "Create account and join" in invitee.get(link).content.decode()
    weak = invitee.post(link, {"action": "create", "username": "frank", "password1": "frank123",
                               "password2": "frank123"})  # fmt: skip
    assert weak.status_code == 400 and "too short" in weak.content.decode()
    assert not get_user_model().objects.filter(username="frank").exists()
    made = invitee.post(link, {"action": "create", "username": "frank", "email": "frank@example.com",
                               "password1": STRONG, "password2": STRONG})  # fmt: skip
    assert made.status_code == 302 and made["Location"] == tenant_path(ops)
    frank = get_user_model().objects.get(username="frank")
    assert Membership.objects.get(tenant=ops.tenant, user=frank).role == "analyst"
    assert invitee.get(tenant_path(ops)).status_code == 200  # signed in, and no forced change: it is theirs
    assert not PasswordChangeRequired.objects.filter(user=frank).exists()


def test_a_declined_or_withdrawn_invitation_stops_working(client_as, ops):
    admin = client_as(Role.TENANT_ADMIN)
    _, declined = invite(admin, ops, "gina")
    gina = get_user_model().objects.create_user("gina")
    invitee = Client()
    invitee.force_login(gina)
    assert invitee.post(declined, {"action": "decline"}).status_code == 302
    assert invitee.post(declined, {"action": "accept"}).status_code == 404
    assert not Membership.objects.filter(tenant=ops.tenant, user=gina).exists()
    _, withdrawn = invite(admin, ops, "gina")
    pending = Invitation.objects.filter(tenant=ops.tenant, closed_at__isnull=True).get()
    assert admin.post(tenant_path(ops, "members/"), {"action": "withdraw", "invitation": pending.pk}).status_code == 302
    assert invitee.post(withdrawn, {"action": "accept"}).status_code == 404
    assert not Membership.objects.filter(tenant=ops.tenant, user=gina).exists()


def test_only_tenant_admins_invite(client_as, ops):
    refused = client_as(Role.BANK_ADMIN).post(tenant_path(ops, "members/"), {"action": "add", "invited_as": "x"})
    assert refused.status_code == 403 and not Invitation.objects.exists()


def test_a_first_password_passes_the_validators_is_shown_once_and_must_be_changed(db):
    from django.contrib.auth.models import Permission

    staff_user = get_user_model().objects.create_user("operator", password=STRONG, is_staff=True)
    staff_user.user_permissions.add(Permission.objects.get(codename="manage_tenants"))  # the staff page's permission
    staff = Client()
    staff.force_login(staff_user)
    made = staff.post("/staff/tenants/", {"slug": "globex", "name": "Globex", "admin": "hank",
                                          "email": "hank@example.com", "create": "on"})  # fmt: skip
    assert made.status_code == 200 and made["Cache-Control"].startswith("no-store")
    password = made.content.decode().split('<code id="new-password">')[1].split("</code>")[0]
    hank = get_user_model().objects.get(username="hank")
    password_validation.validate_password(password, hank)  # raises if it would not pass
    assert not secrets_kept(staff, password) and password not in staff.get("/staff/tenants/").content.decode()

    hank_client = Client()
    signed_in = hank_client.post("/accounts/login/", {"username": "hank", "password": password})
    assert signed_in.status_code == 302
    held = hank_client.get("/t/globex/")
    assert held.status_code == 302 and held["Location"] == "/accounts/password/?first=1"
    api = hank_client.get("/api/v1/banks/")
    assert api.status_code == 403 and api.json()["code"] == "password_change_required"
    form = hank_client.get("/accounts/password/?first=1")
    assert "Choose your own password" in form.content.decode() and form["Cache-Control"].startswith("no-store")
    changed = hank_client.post("/accounts/password/", {"old_password": password, "new_password1": STRONG,
                                                       "new_password2": STRONG})  # fmt: skip
    assert changed.status_code == 302
    assert hank_client.get("/t/globex/").status_code == 200
    assert not PasswordChangeRequired.objects.filter(user=hank).exists()
    hank.refresh_from_db()
    assert not hank.check_password(password)


def test_the_admin_site_cannot_issue_keys_into_a_message_cookie(db):
    staff_user = get_user_model().objects.create_superuser("root", password=STRONG)
    client = Client()
    client.force_login(staff_user)
    assert client.get("/admin/banks/apikey/add/").status_code == 403


def test_a_new_api_key_is_in_the_answer_only(client_as, ops):
    client = client_as(Role.BANK_ADMIN)
    issued = client.post(bank_path(ops, "settings/api-keys/"), {"action": "create", "name": "k", "scopes": ["read"]})
    raw = issued.content.decode().split('<code id="new-key">')[1].split("</code>")[0]
    assert issued.status_code == 200 and issued["Cache-Control"] == "no-store"
    assert not secrets_kept(client, raw)
