"""Querysets compiled once: the same rows as the queryset itself, for each call's own values."""

import pytest

from banks.models import Bank
from memoryhub.compiled import compiled_rows
from tests.factories import BankFactory, TenantFactory

pytestmark = pytest.mark.django_db


def test_compiled_rows_give_each_call_s_own_rows_from_one_compilation():
    first, second = TenantFactory(), TenantFactory()
    banks = {(tenant.pk, slug): BankFactory(tenant=tenant, slug=slug) for tenant in (first, second) for slug in "ab"}
    built = []

    def build(tenant_id, slug):
        built.append((tenant_id, slug))
        return Bank.objects.filter(tenant_id=tenant_id, slug=slug)

    run = compiled_rows(build, tenant_id=-7_340_291_118, slug="<stand-in>")
    for (tenant_id, slug), bank in banks.items():
        rows = run(tenant_id=tenant_id, slug=slug)
        assert [row.pk for row in rows] == [bank.pk] == [b.pk for b in build(tenant_id, slug)]
        assert isinstance(rows[0], Bank) and rows[0].tenant == bank.tenant
    assert run(tenant_id=first.pk, slug="missing") == []
    assert built.count((-7_340_291_118, "<stand-in>")) == 1  # compiled once, with the stand-ins


def test_a_stand_in_the_compiled_parameters_do_not_hold_is_refused():
    run = compiled_rows(lambda tenant_id, slug: Bank.objects.filter(slug=slug), tenant_id=-7_340_291_118, slug="x-y")
    with pytest.raises(RuntimeError, match="stand-ins"):
        run(tenant_id=1, slug="a")
