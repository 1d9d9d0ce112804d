"""Fixtures for the dashboard: a bank with one person per role, and clients signed in as each."""

from __future__ import annotations

import pytest
from django.test import Client

from banks.permissions import Role
from tests.web.builders import OpsBank, build_ops_bank


@pytest.fixture
def ops(db) -> OpsBank:
    return build_ops_bank()


@pytest.fixture
def client_as(ops):
    """``client_as(Role.REVIEWER)``: a Django test client signed in as that person.

    CSRF checks are off here so tests can post forms directly; every form's refusal without the token is tested
    with ``Client(enforce_csrf_checks=True)`` (``tests/web/test_page_isolation.py``).
    """

    def make(role: Role) -> Client:
        client = Client(enforce_csrf_checks=False)
        client.force_login(ops.users[role])
        return client

    return make
