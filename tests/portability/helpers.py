"""Requests the import tests send: raw JSON-lines bodies, as curl sends them in the security review."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from django.test import Client

from banks.models import Bank
from banks.permissions import Role
from tests.helpers.builders import make_user
from tests.helpers.callers import Caller, make_caller

NDJSON = "application/x-ndjson"


def body(*records) -> bytes:
    """JSON lines (dicts are dumped; strings and bytes are taken as they are)."""
    lines = [r if isinstance(r, bytes) else (r if isinstance(r, str) else json.dumps(r)).encode() for r in records]
    return b"\n".join(lines) + b"\n"


def post_import(caller: Caller, data: bytes, **params):
    query = f"?{urlencode(params)}" if params else ""
    return caller.client.post(caller.url("import") + query, data=data, content_type=NDJSON)


def writer_of(bank: Bank) -> Caller:
    """A bank-scoped write key: what every retaining agent holds."""
    return make_caller(bank=bank, bank_scoped=True, scopes=("read", "write"))


def reader_of(bank: Bank) -> Caller:
    return make_caller(bank=bank, bank_scoped=True, scopes=("read",))


def viewer_client(bank: Bank) -> Client:
    """A person who may read ``bank``'s pages, signed in."""
    client = Client()
    client.force_login(make_user(f"viewer-{bank.pk}", tenant=bank.tenant, bank=bank, role=Role.VIEWER))
    return client


def page(bank: Bank, path: str) -> str:
    return f"/t/{bank.tenant.slug}/banks/{bank.slug}/{path}"
