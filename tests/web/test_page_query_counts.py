"""Every dashboard page costs a pinned number of SQL queries, the same with 2 rows of everything as with 20.

Pages come from the URL resolver (everything under ``/t/`` and ``/staff/``), plus the filtered views listed in
``VARIANTS``; pins live in ``tests/query_counts.json`` (section ``pages``), regenerated with
``pytest --update-query-counts`` (``tests.helpers.query_counts``). Every page pays the same base (session,
user, membership, roles, banks, tenants, the row-level-security scope and its savepoints; bank pages add the
pending-review badge), then its own reads: one or two per list, never one per row.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.paginator import Page
from django.test import Client
from django.test.utils import ContextList

from banks.permissions import Role
from beliefs.models import Belief, Episode
from tests.factories import BankFactory, TenantFactory
from tests.helpers.builders import make_user
from tests.helpers.populate import populate
from tests.helpers.query_counts import LARGE, OPTION, SMALL, compare, count_queries, pinned
from tests.helpers.routes import Route, all_routes

ROUTES = [route for route in all_routes() if route.pattern.startswith(("/t/", "/staff/")) and route.method == "get"]


def _first(queryset) -> int:
    return queryset.order_by("id").values_list("id", flat=True).first()


#: Path parameters of the detail pages: the first row of each kind, whose nested lists grow with the data.
KWARGS: dict[str, Callable] = {
    "beliefs_tenant:tenant-erasure-detail:get": lambda bank: {"request_id": _first(bank.tenant.erasure_requests)},
    "beliefs_tenant:bank-erasure-detail:get": lambda bank: {
        "request_id": _first(bank.tenant.erasure_requests.filter(bank=bank))
    },
    "beliefs_web:belief-detail:get": lambda bank: {
        "belief_id": _first(Belief.objects.filter(bank=bank, subject__contains="Sig0"))
    },
    "beliefs_web:episode-detail:get": lambda bank: {
        "episode_id": _first(Episode.objects.filter(bank=bank, metadata__populated="populated:0:0"))
    },
    "beliefs_web:mental-model-detail:get": lambda bank: {"name": "model-0"},
}
#: Filtered views of list pages, pinned as well (their filters must not add per-row queries either).
VARIANTS = {
    "beliefs_web:belief-list:get?status=active&min_proof_count=2": "beliefs_web:belief-list:get",
    "audit_web:bank-audit:get?action=populated&actor=user:": "audit_web:bank-audit:get",
    "reviews_web:queue:get?view=decided": "reviews_web:queue:get",
}


def pages() -> dict[str, Route]:
    found = {route.key: route for route in ROUTES}
    return {**found, **{variant: found[key] for variant, key in VARIANTS.items()}}


def url(key: str, route: Route, bank) -> str:
    kwargs = KWARGS.get(route.key, lambda bank: {})(bank)
    query = key.partition("?")[2]
    return route.path(tenant_slug=bank.tenant.slug, bank_slug=bank.slug, **kwargs) + (f"?{query}" if query else "")


def measure(client, bank, rows: int) -> dict[str, int]:
    for key, route in pages().items():  # warm up: the session's first page, first-use caches
        response = client.get(url(key, route, bank))
        contexts = response.context if isinstance(response.context, ContextList) else [response.context]
        values = [value for context in contexts if context for value in context.flatten().values()]
        for page in (value for value in values if isinstance(value, Page)):  # every paged list has the rows
            assert page.paginator.count >= rows, (key, page.paginator.count)  # an N+1 would show in
    return {key: count_queries(lambda key=key, route=route: client.get(url(key, route, bank)))
            for key, route in pages().items()}  # fmt: skip


def test_every_page_has_a_pinned_query_count(request):
    if request.config.getoption(OPTION):
        pytest.skip("pins are being regenerated")
    assert sorted(set(pages()) ^ set(pinned("pages"))) == [], "pages without a pin, or stale pins"


def test_pages_cost_the_pinned_queries_at_two_sizes(db, request):
    tenant = TenantFactory(name="Acme Operations")
    bank = BankFactory(tenant=tenant, slug="ops", name="Operations")
    admin = make_user(f"admin-{tenant.pk}", tenant=tenant, bank=bank, role=Role.TENANT_ADMIN)
    admin.is_staff = True  # the staff page too: an operator sees tenants, never memory
    admin.save()
    admin.user_permissions.add(Permission.objects.get(codename="manage_tenants", content_type__app_label="banks"))
    assert get_user_model().objects.get(pk=admin.pk).has_perm("banks.manage_tenants")
    client = Client()
    client.force_login(admin)
    populate(bank, SMALL)
    small = measure(client, bank, rows=SMALL)
    populate(bank, LARGE)
    large = measure(client, bank, rows=LARGE)
    compare("pages", small, large, update=request.config.getoption(OPTION))
