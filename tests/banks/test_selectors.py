"""Selectors read only inside the tenant (and bank) they are given."""

import pytest

from banks.models import Membership
from banks.permissions import Role
from banks.selectors import api_key_by_prefix, api_keys_of, bank_people, tenant_member_get, tenant_members
from banks.services.api_keys import api_key_issue
from banks.services.banks import bank_role_set, membership_set
from tests.factories import BankFactory, TenantFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_keys_are_found_only_in_the_tenant_and_bank_given():
    acme, other = TenantFactory(), TenantFactory()
    sales, support = BankFactory(tenant=acme), BankFactory(tenant=acme)
    sales_key = api_key_issue(tenant=acme, bank=sales, name="sales").api_key
    tenant_key = api_key_issue(tenant=acme, name="all").api_key
    foreign_key = api_key_issue(tenant=other, name="theirs").api_key
    assert api_key_by_prefix(tenant=acme, prefix=sales_key.prefix) == sales_key
    assert api_key_by_prefix(tenant=acme, bank=sales, prefix=sales_key.prefix) == sales_key
    assert api_key_by_prefix(tenant=acme, bank=support, prefix=sales_key.prefix) is None
    assert api_key_by_prefix(tenant=acme, bank=sales, prefix=tenant_key.prefix) is None
    assert api_key_by_prefix(tenant=acme, prefix=foreign_key.prefix) is None
    assert list(api_keys_of(tenant=acme)) == [tenant_key, sales_key]  # newest first
    assert list(api_keys_of(tenant=acme, bank=sales)) == [sales_key]
    assert list(api_keys_of(tenant=acme, bank=support)) == []


def test_bank_people_splits_tenant_admins_role_holders_and_the_other_members():
    acme, other = TenantFactory(), TenantFactory()
    bank = BankFactory(tenant=acme)
    admin, viewer, member, outsider = (UserFactory(username=name) for name in ("ann", "bob", "cat", "dan"))
    membership_set(tenant=acme, user=admin, role=Membership.Role.ADMIN)
    membership_set(tenant=acme, user=viewer, role=Membership.Role.ANALYST)
    membership_set(tenant=acme, user=member, role=Membership.Role.ANALYST)
    membership_set(tenant=other, user=outsider, role=Membership.Role.ADMIN)
    bank_role_set(bank=bank, user=viewer, role=Role.VIEWER)
    people = bank_people(bank=bank)
    assert people.admins == [admin] and people.holders == [(viewer, Role.VIEWER)] and people.others == [member]
    assert [m.user for m in tenant_members(tenant=acme)] == [admin, viewer, member]
    assert tenant_member_get(tenant=acme, user_id=outsider.pk) is None
    assert tenant_member_get(tenant=acme, user_id="not a number") is None
    assert tenant_member_get(tenant=acme, user_id=str(member.pk)).user == member
