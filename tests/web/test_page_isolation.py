"""Every tenant and bank page, checked the same way: anonymous, another tenant, no role here, too low a role,
no CSRF token, and the role the page needs.

The pages come from the URL resolver (``tests.helpers.routes``): a page added under ``/t/<tenant_slug>/``
without a case in ``CASES`` fails ``test_every_page_has_a_case``. The role a page needs is the view's own
``required_role`` (``banks.web.access``), so a page that lowers it is caught by the refused-role test only
if the case says which role it should need (``role``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from django.test import Client

from banks.models import ApiKey, Bank, Membership
from banks.permissions import Role, bank_roles
from banks.services.api_keys import api_key_issue
from beliefs.models import Belief, DefenseRescan, ErasureRequest, MentalModel
from beliefs.services.forget.subjects import erasure_request_create
from beliefs.services.mental_models import mental_model_create
from reviews.models import ReviewItem
from tests.factories import BankFactory, TenantFactory
from tests.helpers.builders import BASE, build_ops_bank, make_user
from tests.helpers.routes import Route, all_routes
from tests.helpers.snapshot import tenant_snapshot
from workloads.churn import intervention_record, play_upsert

ESCAPED = "&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;"


@pytest.fixture
def site(db) -> SimpleNamespace:
    """The ``ops`` bank (one person per role, a pending suppression and lesson, a hostile episode) plus a mental
    model, a churn play, an erasure request, a sibling bank with its own member, and another tenant's admin."""
    ops = build_ops_bank()
    mental_model_create(bank=ops.bank, name="disk", question="Which disk alerts are benign?")
    play_upsert(bank=ops.bank, name="win-back-call", horizon_days=60)
    intervention_record(bank=ops.bank, account="initech", segment="SMB", play="win-back-call", occurred_at=BASE)
    api_key_issue(tenant=ops.tenant, bank=ops.bank, name="ops-ingest-key", scopes=["read", "write"])
    erasure = erasure_request_create(tenant=ops.tenant, bank=ops.bank, subject="host:db-09", actor="user:test")
    sibling = BankFactory(tenant=ops.tenant, slug="sibling")
    elsewhere = make_user(f"sibling-only-{ops.tenant.pk}", tenant=ops.tenant, bank=sibling, role=Role.BANK_ADMIN)
    other_tenant = TenantFactory(name="Globex")
    other_bank = BankFactory(tenant=other_tenant, slug="ops")  # the same slug, in another tenant
    stranger = make_user(f"stranger-{other_tenant.pk}", tenant=other_tenant, bank=other_bank, role=Role.TENANT_ADMIN)
    return SimpleNamespace(
        other_tenant=other_tenant,
        ops=ops,
        tenant=ops.tenant,
        bank=ops.bank,
        users=ops.users,
        belief=Belief.objects.filter(bank=ops.bank, object="benign").first(),
        erasure=erasure,
        elsewhere=elsewhere,
        stranger=stranger,
    )


def signed_in(user, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


@dataclass
class Case:
    """What the page shows (GET) or does (POST) for a person with the role it needs."""

    role: Role  # the role the page should need for this method
    check: Callable[[SimpleNamespace, object], bool]
    kwargs: Callable[[SimpleNamespace], dict] = field(default=lambda site: {})
    data: Callable[[SimpleNamespace, Client], dict] | None = None  # the form a POST sends


def shows(*texts: str) -> Callable:
    return lambda site, response: response.status_code == 200 and all(t in response.content.decode() for t in texts)


def redirected(check: Callable[[SimpleNamespace], bool]) -> Callable:
    return lambda site, response: response.status_code == 302 and check(site)


def _policy_form(site, client) -> dict:
    form = client.get(f"/t/{site.tenant.slug}/banks/ops/settings/policy/").context["form"]
    data = {name: value for name, value in form.initial.items() if value is not None and value is not False}
    return {**data, "name": "Renamed operations"}


def _role_of(site, role: Role) -> Role:
    return bank_roles(site.users[role], site.tenant).get(site.bank.pk, Role.NONE)


MODEL = {"name": "disk"}
#: What only the ``ops`` tenant's pages show: none of it may reach anyone else.
LEAKS = ("Acme Operations", "backup window, week", "db-01", ESCAPED, "Which disk alerts are benign?")

CASES: dict[str, Case] = {
    # Tenant pages
    "beliefs_tenant:tenant-home:get": Case(Role.VIEWER, shows("Operations")),
    "banks_web:tenant-settings:get": Case(Role.TENANT_ADMIN, shows("Operations", "sibling")),
    "banks_web:tenant-settings:post": Case(
        Role.TENANT_ADMIN,
        redirected(lambda site: site.tenant.__class__.objects.get(pk=site.tenant.pk).name == "Acme Ops"),
        data=lambda site, client: {"action": "rename", "name": "Acme Ops"},
    ),
    "banks_web:tenant-members:get": Case(
        Role.TENANT_ADMIN, lambda site, r: shows(site.users[Role.VIEWER].username, site.elsewhere.username)(site, r)
    ),  # fmt: skip
    "banks_web:tenant-members:post": Case(
        Role.TENANT_ADMIN,
        redirected(
            lambda site: (
                Membership.objects.get(tenant=site.tenant, user=site.users[Role.VIEWER]).role == Membership.Role.ADMIN
            )
        ),
        data=lambda site, client: {"action": "role", "user": site.users[Role.VIEWER].pk, "role": "admin"},
    ),  # fmt: skip
    "banks_web:tenant-api-keys:get": Case(Role.TENANT_ADMIN, shows("<h1>Tenant API keys</h1>", "ops-ingest-key")),
    "banks_web:tenant-api-keys:post": Case(
        Role.TENANT_ADMIN,
        lambda site, r: r.status_code in (200, 302) and ApiKey.objects.filter(tenant=site.tenant, name="k-t").exists(),
        data=lambda site, client: {"action": "create", "name": "k-t", "scopes": ["read"]},
    ),
    "audit_web:tenant-audit:get": Case(Role.TENANT_ADMIN, shows("erasure.requested", "user:test")),
    "beliefs_tenant:tenant-erasure:get": Case(
        Role.TENANT_ADMIN, lambda site, r: shows(f"/erasure/{site.erasure.pk}/")(site, r)
    ),  # fmt: skip
    "beliefs_tenant:tenant-erasure:post": Case(
        Role.TENANT_ADMIN,
        redirected(lambda site: ErasureRequest.objects.filter(tenant=site.tenant, bank=None).exists()),
        data=lambda site, client: {"subject": "HOST:DB-01", "bank": "", "confirm": "on"},
    ),
    "beliefs_tenant:tenant-erasure-detail:get": Case(
        Role.TENANT_ADMIN,
        lambda site, r: shows(f"<h1>Erasure request {site.erasure.pk}</h1>")(site, r),
        kwargs=lambda s: {"request_id": s.erasure.pk},
    ),  # fmt: skip
    # Bank pages
    "beliefs_web:bank-overview:get": Case(Role.VIEWER, shows("Operations", "Pending reviews")),
    "beliefs_web:belief-list:get": Case(Role.VIEWER, shows("DiskLatencyHigh")),
    "beliefs_web:belief-detail:get": Case(
        Role.VIEWER, shows("DiskLatencyHigh", "backup window"), kwargs=lambda s: {"belief_id": s.belief.pk}
    ),
    "beliefs_web:episode-list:get": Case(Role.VIEWER, shows(ESCAPED)),
    "beliefs_web:episode-detail:get": Case(
        Role.VIEWER, shows(ESCAPED), kwargs=lambda s: {"episode_id": s.ops.hostile_episode_id}
    ),
    "beliefs_web:recall:get": Case(Role.VIEWER, shows("<h1>Recall playground</h1>")),
    "beliefs_web:mental-model-list:get": Case(Role.VIEWER, shows("disk", "Which disk alerts are benign?")),
    "beliefs_web:mental-model-list:post": Case(
        Role.BANK_ADMIN,
        redirected(lambda site: MentalModel.objects.filter(bank=site.bank, name="hosts").exists()),
        data=lambda site, client: {"name": "hosts", "question": "Which hosts alert?", "max_beliefs": 5},
    ),
    "beliefs_web:mental-model-detail:get": Case(
        Role.VIEWER, shows("Which disk alerts are benign?"), kwargs=lambda s: MODEL
    ),
    "beliefs_web:mental-model-detail:post": Case(
        Role.BANK_ADMIN,
        redirected(lambda site: not MentalModel.objects.filter(bank=site.bank, name="disk").exists()),
        kwargs=lambda s: MODEL,
        data=lambda site, client: {"action": "delete"},
    ),
    "workloads_web:suppression-log:get": Case(Role.VIEWER, shows("DiskLatencyHigh", "db-01")),
    "workloads_web:churn-plays:get": Case(Role.VIEWER, shows("win-back-call")),
    "reviews_web:queue:get": Case(Role.VIEWER, shows("DiskLatencyHigh", "Offer SMB accounts a training session")),
    "reviews_web:decide:post": Case(
        Role.REVIEWER,
        redirected(lambda site: ReviewItem.objects.get(pk=site.ops.suppression.pk).status == "accepted"),
        kwargs=lambda s: {"item_id": s.ops.suppression.pk},
        data=lambda site, client: {"decision": "accept"},
    ),
    "reviews_web:bulk-accept:post": Case(
        Role.REVIEWER,
        redirected(lambda site: ReviewItem.objects.get(pk=site.ops.lesson.pk).status == "accepted"),
        data=lambda site, client: {"item": [site.ops.lesson.pk]},
    ),
    "banks_web:bank-policy:get": Case(Role.BANK_ADMIN, shows("Operations")),
    "banks_web:bank-policy:post": Case(
        Role.BANK_ADMIN,
        redirected(lambda site: Bank.objects.get(pk=site.bank.pk).name == "Renamed operations"),
        data=_policy_form,
    ),
    "banks_web:bank-members:get": Case(
        Role.BANK_ADMIN, lambda site, r: shows(site.users[Role.VIEWER].username)(site, r)
    ),
    "banks_web:bank-members:post": Case(
        Role.BANK_ADMIN,
        redirected(lambda site: _role_of(site, Role.VIEWER) == Role.REVIEWER),
        data=lambda site, client: {"user": site.users[Role.VIEWER].pk, "role": "reviewer"},
    ),
    "banks_web:bank-api-keys:get": Case(Role.BANK_ADMIN, shows("<h1>API keys</h1>", "ops-ingest-key")),
    "banks_web:bank-api-keys:post": Case(
        Role.BANK_ADMIN,
        lambda site, r: r.status_code in (200, 302) and ApiKey.objects.filter(bank=site.bank, name="k-b").exists(),
        data=lambda site, client: {"action": "create", "name": "k-b", "scopes": ["read"]},
    ),
    "audit_web:bank-audit:get": Case(Role.BANK_ADMIN, shows("erasure.requested", "user:test")),
    "beliefs_tenant:bank-erasure:get": Case(
        Role.BANK_ADMIN, lambda site, r: shows(f"/settings/erasure/{site.erasure.pk}/")(site, r)
    ),  # fmt: skip
    "beliefs_tenant:bank-erasure:post": Case(
        Role.BANK_ADMIN,
        redirected(lambda site: ErasureRequest.objects.filter(bank=site.bank).count() == 2),
        data=lambda site, client: {"subject": "host:db-01", "confirm": "on"},
    ),
    "beliefs_tenant:bank-erasure-detail:get": Case(
        Role.BANK_ADMIN,
        lambda site, r: shows(f"<h1>Erasure request {site.erasure.pk}</h1>")(site, r),
        kwargs=lambda s: {"request_id": s.erasure.pk},
    ),
    "beliefs_tenant:bank-defense:get": Case(Role.BANK_ADMIN, shows("<h1>Memory Defense</h1>")),
    "beliefs_tenant:bank-defense:post": Case(
        Role.BANK_ADMIN,
        redirected(lambda site: DefenseRescan.objects.filter(bank=site.bank).exists()),
        data=lambda site, client: {},
    ),
}

ROUTES = [route for route in all_routes() if route.pattern.startswith("/t/")]
PARAMS = [pytest.param(route, id=route.key) for route in ROUTES]
ROLES = (Role.VIEWER, Role.REVIEWER, Role.BANK_ADMIN, Role.TENANT_ADMIN)


def path(route: Route, site, *, tenant_slug: str | None = None) -> str:
    return route.path(tenant_slug=tenant_slug or site.tenant.slug, bank_slug=site.bank.slug,
                      **CASES[route.key].kwargs(site))  # fmt: skip


def send(client: Client, route: Route, site, data: dict | None = None, **kwargs):
    if route.method == "get":
        return client.get(path(route, site, **kwargs))
    return client.post(path(route, site, **kwargs), data or {})


def effective_role(route: Route, role: Role) -> Role:
    """What ``site.users[role]`` holds on this page: the bank role, or on tenant pages admin vs member."""
    if route.has_bank:
        return role
    return Role.TENANT_ADMIN if role == Role.TENANT_ADMIN else Role.VIEWER


def test_every_page_has_a_case():
    routes = {route.key for route in ROUTES}
    assert len(routes) == len(ROUTES) >= 38
    assert sorted(routes - set(CASES)) == [], "pages without an isolation case: add them to CASES"
    assert sorted(set(CASES) - routes) == [], "cases for pages that no longer exist"


@pytest.mark.parametrize("route", PARAMS)
def test_the_page_needs_the_role_its_case_names(route):
    assert route.view_class().required_role(route.method.upper()) == CASES[route.key].role


@pytest.mark.parametrize("route", PARAMS)
def test_refused_visitors_change_nothing(site, route):
    """Anonymous → sign-in; another tenant's admin → 404 (and with the same bank slug in their own tenant, none of
    this tenant's rows); a member without a role on this bank → 404; each role below the one needed → 403; a form
    without its CSRF token → 403."""
    case = CASES[route.key]
    needed = next(role for role in ROLES if effective_role(route, role) >= case.role)
    data = case.data(site, signed_in(site.users[needed])) if case.data else None
    before = tenant_snapshot(site.tenant)

    response = send(Client(), route, site, data)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next="), "anonymous"

    stranger = signed_in(site.stranger)
    response = send(stranger, route, site, data)
    assert response.status_code == 404, "another tenant's admin"
    assert not [leak for leak in LEAKS if leak in response.content.decode()]
    response = send(stranger, route, site, data, tenant_slug=site.other_tenant.slug)  # own tenant, same bank slug
    assert not [leak for leak in LEAKS if leak in response.content.decode()], "the same slugs in another tenant"

    if route.has_bank:
        response = send(signed_in(site.elsewhere), route, site, data)
        assert response.status_code == 404, "a member with a role on another bank only"

    for role in ROLES:
        if effective_role(route, role) < case.role:
            response = send(signed_in(site.users[role]), route, site, data)
            assert response.status_code == 403, role
            assert "You don't have the role for this" in response.content.decode()

    if route.method != "get":
        response = send(signed_in(site.users[needed], csrf=True), route, site, data)
        assert response.status_code == 403 and "CSRF" in response.content.decode(), "no CSRF token"

    assert tenant_snapshot(site.tenant) == before


@pytest.mark.parametrize("route", PARAMS)
def test_the_role_the_page_needs_is_enough(site, route):
    case = CASES[route.key]
    needed = next(role for role in ROLES if effective_role(route, role) >= case.role)
    client = signed_in(site.users[needed])
    response = send(client, route, site, case.data(site, client) if case.data else None)
    assert case.check(site, response), (needed, response.status_code, response.content.decode()[:3000])
