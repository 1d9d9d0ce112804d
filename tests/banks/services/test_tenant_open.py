"""A new tenant with its first admin (the staff page's one service call)."""

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError

from audit.models import AuditEvent
from banks.models import Membership, PasswordChangeRequired, Tenant
from banks.services.accounts import tenant_open
from memoryhub.tenancy import tenant_scope
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_a_new_tenant_gets_a_new_admin_with_a_first_password_and_every_step_is_audited():
    opened = tenant_open(slug="globex", name="Globex", actor="staff:op", admin_username="hank", admin_email="h@x.io")
    assert opened.tenant.slug == "globex" and opened.admin.get_username() == "hank"
    assert get_user_model().objects.get(username="hank").check_password(opened.first_password)
    assert PasswordChangeRequired.objects.filter(user=opened.admin).exists()
    with tenant_scope(opened.tenant.pk):
        role = Membership.objects.get(tenant=opened.tenant, user=opened.admin).role
        events = AuditEvent.objects.filter(tenant=opened.tenant, actor="staff:op")
        actions = set(events.values_list("action", flat=True))
    assert role == Membership.Role.ADMIN
    assert {"tenant.created", "user.created", "membership.set"} <= actions


def test_an_existing_account_becomes_admin_without_a_new_password():
    hank = UserFactory(username="hank")
    stored = get_user_model().objects.filter(pk=hank.pk).values_list("password", flat=True)
    before = stored.get()
    opened = tenant_open(slug="globex", name="Globex", actor="staff:op", admin=hank)
    assert opened.admin == hank and opened.first_password is None
    assert stored.get() == before and not PasswordChangeRequired.objects.filter(user=hank).exists()
    with tenant_scope(opened.tenant.pk):
        assert Membership.objects.get(tenant=opened.tenant, user=hank).role == Membership.Role.ADMIN


def test_a_first_admin_that_cannot_be_created_leaves_no_tenant_behind():
    UserFactory(username="hank")  # the name is taken: the account cannot be made
    with pytest.raises(IntegrityError):
        tenant_open(slug="globex", name="Globex", actor="staff:op", admin_username="hank")
    assert not Tenant.objects.filter(slug="globex").exists()
    assert not AuditEvent.objects.filter(target="tenant:globex").exists()
