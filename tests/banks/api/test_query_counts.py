"""Every GET route of the API costs a pinned number of SQL queries, the same with 2 rows of everything as with 20.

Routes come from the URL resolver; pins live in ``tests/query_counts.json`` (section ``api``), regenerated
with ``pytest --update-query-counts`` (``tests.helpers.query_counts``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from beliefs.models import Belief, Episode, ErasureRequest, Fact, RetainBatch
from reviews.models import ReviewItem
from tests.helpers.callers import make_caller
from tests.helpers.populate import populate
from tests.helpers.query_counts import LARGE, OPTION, SMALL, compare, count_queries, pinned
from tests.helpers.routes import Route, all_routes
from workloads.models import Intervention, TriageDecision

ROUTES = [route for route in all_routes() if route.is_api and route.method == "get"]


def _first(queryset) -> int:
    return queryset.order_by("id").values_list("id", flat=True).first()


#: Path parameters of the detail routes: the first row of each kind, whose nested lists grow with the data.
KWARGS: dict[str, Callable] = {
    "erasure-request-detail:get": lambda bank: {
        "request_id": _first(ErasureRequest.objects.filter(tenant=bank.tenant))
    },
    "retain-batch:get": lambda bank: {"batch_id": _first(RetainBatch.objects.filter(bank=bank))},
    "episode-detail:get": lambda bank: {"episode_id": _first(Episode.objects.filter(bank=bank))},
    "fact-detail:get": lambda bank: {"fact_id": _first(Fact.objects.filter(bank=bank))},
    "belief-detail:get": lambda bank: {"belief_id": _first(Belief.objects.filter(bank=bank, subject__contains="Sig0"))},
    "mental-model-detail:get": lambda bank: {"name": "model-0"},
    "review-item-detail:get": lambda bank: {"item_id": _first(ReviewItem.objects.filter(bank=bank))},
    "anomaly-decision-detail:get": lambda bank: {"decision_id": _first(TriageDecision.objects.filter(bank=bank))},
    "churn-play-detail:get": lambda bank: {"name": "play-0"},
    "churn-intervention-detail:get": lambda bank: {"intervention_id": _first(Intervention.objects.filter(bank=bank))},
}


def url(route: Route, bank) -> str:
    kwargs = KWARGS.get(route.key, lambda bank: {})(bank)
    return route.path(bank_slug=bank.slug, **kwargs)


def measure(client, bank, rows: int) -> dict[str, int]:
    for route in ROUTES:  # warm up: first-use caches (content types, policy, guardian) are not the route's cost
        response = client.get(url(route, bank))
        body = response.json() if response.get("Content-Type") == "application/json" else {}
        if "results" in body:  # every list has the rows an N+1 would show in
            assert len(body["results"]) >= rows, (route.key, len(body["results"]))
    return {route.key: count_queries(lambda route=route: client.get(url(route, bank))) for route in ROUTES}


def test_every_get_route_has_a_pinned_query_count(request):
    if request.config.getoption(OPTION):
        pytest.skip("pins are being regenerated")
    assert sorted({route.key for route in ROUTES} ^ set(pinned("api"))) == [], "routes without a pin, or stale pins"


def test_get_routes_cost_the_pinned_queries_at_two_sizes(db, request):
    caller = make_caller()
    populate(caller.bank, SMALL)
    small = measure(caller.client, caller.bank, rows=SMALL)
    populate(caller.bank, LARGE)
    large = measure(caller.client, caller.bank, rows=LARGE)
    compare("api", small, large, update=request.config.getoption(OPTION))
