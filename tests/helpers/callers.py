"""API callers: a tenant, a bank and a client authenticated by a key; episodes retained through the real service."""

from __future__ import annotations

from dataclasses import dataclass

from rest_framework.test import APIClient

from banks.models import ApiKey, Bank, Tenant
from banks.services.api_keys import api_key_issue
from beliefs.services.retain import RetainItem, retain
from tests.factories import BankFactory, TenantFactory


@dataclass
class Caller:
    """A tenant with one bank and an API client authenticated by a tenant-wide key."""

    tenant: Tenant
    bank: Bank
    api_key: ApiKey
    raw_key: str
    client: APIClient

    def url(self, path: str = "", bank: Bank | None = None) -> str:
        return f"/api/v1/banks/{(bank or self.bank).slug}/{path}"


def make_caller(*, bank: Bank | None = None, bank_scoped: bool = False, scopes=("read", "write", "admin")) -> Caller:
    bank = bank or BankFactory(tenant=TenantFactory())
    issued = api_key_issue(tenant=bank.tenant, name="test", bank=bank if bank_scoped else None, scopes=list(scopes))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.raw_key}")
    return Caller(tenant=bank.tenant, bank=bank, api_key=issued.api_key, raw_key=issued.raw_key, client=client)


def retain_texts(bank: Bank, texts: list[str], **fields) -> list[int]:
    result = retain(bank=bank, items=[RetainItem(content=text, **fields) for text in texts])
    return [outcome.episode_id for outcome in result.outcomes]
