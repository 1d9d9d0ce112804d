"""Who may open which page: sign-in, roles per bank, 404 across tenants, 403 for a missing role, CSRF, CSP."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from banks.permissions import Role, bank_roles, role_from_codenames
from beliefs.models import Belief, Episode
from reviews.models import ReviewItem
from tests.factories import BankFactory
from tests.helpers.builders import BASE, PASSWORD, bank_path, build_ops_bank, make_user, prove_benign, suppress

BANK_PAGES = ["", "beliefs/", "episodes/", "recall/", "mental-models/", "reviews/"]


def test_anonymous_visitors_are_sent_to_sign_in(ops):
    response = Client().get(bank_path(ops, "beliefs/"))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next=")


def test_sign_in_lands_on_the_tenant_and_a_wrong_password_is_refused(ops):
    client = Client()
    bad = client.post("/accounts/login/", {"username": ops.users[Role.VIEWER].username, "password": "nope"})
    assert bad.status_code == 200 and "Please enter a correct username and password" in bad.content.decode()
    good = client.post("/accounts/login/", {"username": ops.users[Role.VIEWER].username, "password": PASSWORD})
    assert good.status_code == 302
    home = client.get("/", follow=True)
    assert home.redirect_chain[-1][0] == f"/t/{ops.tenant.slug}/"
    assert "Operations" in home.content.decode()


@pytest.mark.parametrize("path", BANK_PAGES)
def test_every_role_reads_every_bank_page(client_as, ops, path):
    for role in (Role.VIEWER, Role.REVIEWER, Role.BANK_ADMIN, Role.TENANT_ADMIN):
        response = client_as(role).get(bank_path(ops, path))
        assert response.status_code == 200, (role, path)
        assert (
            f'<span class="role-chip" title="Your role in this bank">{role.label}</span>' in response.content.decode()
        )


def test_other_tenants_user_gets_404_everywhere_even_for_ids_that_exist(ops, db):
    stranger_bank = build_ops_bank(suppressions=0)
    stranger = Client()
    stranger.force_login(stranger_bank.users[Role.TENANT_ADMIN])
    belief = Belief.objects.filter(bank=ops.bank).first()
    paths = [
        f"/t/{ops.tenant.slug}/",
        *[bank_path(ops, p) for p in BANK_PAGES],
        bank_path(ops, f"beliefs/{belief.pk}/"),
        bank_path(ops, f"episodes/{ops.hostile_episode_id}/"),
    ]
    for path in paths:
        response = stranger.get(path)
        assert response.status_code == 404, path
        assert "Operations" not in response.content.decode()
    post = stranger.post(bank_path(ops, f"reviews/{ops.suppression.pk}/decide"), {"decision": "accept"})
    assert post.status_code == 404
    ops.suppression.refresh_from_db()
    assert ops.suppression.status == "pending"


def test_an_id_from_another_bank_of_the_same_tenant_is_a_404(client_as, ops):
    sibling = BankFactory(tenant=ops.tenant, slug="sibling")
    prove_benign(sibling, "CpuHigh", "web-01")
    foreign_belief = Belief.objects.filter(bank=sibling).first()
    foreign_episode = Episode.objects.filter(bank=sibling).first()
    foreign_item = suppress(sibling, "CpuHigh", "web-01", at=BASE + timedelta(days=27))
    client = client_as(Role.TENANT_ADMIN)  # reaches both banks, but each id only under its own bank
    assert client.get(bank_path(ops, f"beliefs/{foreign_belief.pk}/")).status_code == 404
    assert client.get(bank_path(ops, f"episodes/{foreign_episode.pk}/")).status_code == 404
    assert client.post(bank_path(ops, f"reviews/{foreign_item.pk}/decide"), {"decision": "accept"}).status_code == 404
    assert client.get(f"/t/{ops.tenant.slug}/banks/sibling/beliefs/{foreign_belief.pk}/").status_code == 200


def test_a_member_without_a_role_on_the_bank_gets_404(ops):
    outsider = make_user("no-role", tenant=ops.tenant, bank=None, role=Role.NONE)
    client = Client()
    client.force_login(outsider)
    assert client.get(f"/t/{ops.tenant.slug}/").status_code == 200
    assert client.get(bank_path(ops)).status_code == 404


def test_a_viewer_deciding_gets_the_403_page_and_nothing_changes(client_as, ops):
    response = client_as(Role.VIEWER).post(
        bank_path(ops, f"reviews/{ops.suppression.pk}/decide"), {"decision": "accept"}
    )
    assert response.status_code == 403
    assert "You don't have the role for this" in response.content.decode()
    assert "reviewer" in response.content.decode()
    ops.suppression.refresh_from_db()
    assert ops.suppression.status == ReviewItem.Status.PENDING


def test_a_reviewer_may_not_change_mental_models_but_a_bank_admin_may(client_as, ops):
    form = {"name": "hosts", "question": "Which hosts alert?", "max_beliefs": 5}
    assert client_as(Role.REVIEWER).post(bank_path(ops, "mental-models/"), form).status_code == 403
    response = client_as(Role.BANK_ADMIN).post(bank_path(ops, "mental-models/"), form)
    assert response.status_code == 302 and response["Location"].endswith("/mental-models/hosts/")


def test_forms_refuse_a_post_without_the_csrf_token(ops):
    client = Client(enforce_csrf_checks=True)
    client.force_login(ops.users[Role.REVIEWER])
    response = client.post(bank_path(ops, f"reviews/{ops.suppression.pk}/decide"), {"decision": "accept"})
    assert response.status_code == 403 and "CSRF" in response.content.decode()
    ops.suppression.refresh_from_db()
    assert ops.suppression.status == "pending"


def test_pages_send_a_strict_content_security_policy(client_as, ops):
    policy = client_as(Role.VIEWER).get(bank_path(ops))["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in policy


def test_htmx_is_vendored_and_served_by_the_app(client, db):
    response = client.get("/static/vendor/htmx-2.0.11.min.js")
    assert response.status_code == 200
    assert b"htmx" in b"".join(response.streaming_content)[:200]


@pytest.mark.parametrize("path", ["episodes/", "episodes/{id}/"])
def test_stored_markup_is_shown_as_text(client_as, ops, path):
    html = client_as(Role.VIEWER).get(bank_path(ops, path.format(id=ops.hostile_episode_id))).content.decode()
    assert "&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;" in html
    assert "<script>alert" not in html and 'onerror="alert' not in html


def test_stored_markup_is_escaped_in_django_admin_too(ops):
    staff = get_user_model().objects.create_superuser("root", password=PASSWORD)
    client = Client()
    client.force_login(staff)
    html = client.get(f"/admin/beliefs/episode/{ops.hostile_episode_id}/change/").content.decode()
    assert "&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;" in html
    assert "<script>alert" not in html


def test_password_change(client_as, ops):
    client = client_as(Role.VIEWER)
    response = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": "a-much-longer-pass-42", "new_password2": "a-much-longer-pass-42"},
    )
    assert response.status_code == 302 and response["Location"] == "/accounts/password/done/"
    ops.users[Role.VIEWER].refresh_from_db()
    assert ops.users[Role.VIEWER].check_password("a-much-longer-pass-42")


def test_roles_are_object_permissions_per_bank(ops):
    assert role_from_codenames({"view_bank"}) == Role.VIEWER
    assert role_from_codenames({"view_bank", "review_bank"}) == Role.REVIEWER
    assert role_from_codenames({"review_bank"}) == Role.NONE
    for role, user in ops.users.items():
        assert bank_roles(user, ops.tenant) == {ops.bank.pk: role}
    other = build_ops_bank(suppressions=0)
    assert bank_roles(ops.users[Role.TENANT_ADMIN], other.tenant) == {}


def test_a_person_in_two_tenants_switches_and_home_remembers_the_last_one(ops):
    from banks.models import Membership
    from banks.services.banks import membership_set

    other = build_ops_bank(suppressions=0)
    person = ops.users[Role.REVIEWER]
    membership_set(tenant=other.tenant, user=person, role=Membership.Role.ADMIN)
    client = Client()
    client.force_login(person)
    html = client.get(bank_path(ops)).content.decode()
    assert 'aria-label="Switch tenant (current: Acme Operations)"' in html
    assert f'href="/t/{other.tenant.slug}/"' in html
    client.get(f"/t/{other.tenant.slug}/")
    assert client.get("/")["Location"] == f"/t/{other.tenant.slug}/"
    client.get(f"/t/{ops.tenant.slug}/")
    assert client.get("/")["Location"] == f"/t/{ops.tenant.slug}/"
