"""Database mode of the CLI: the same services the API calls, with the server's Django settings.

Used to bootstrap a deployment (the first tenant and its admin key) and for operators on
the database host. Every write runs scoped to its tenant, like a request.

Each command imports models and services inside the function, after ``_setup()``: they
need Django's app registry, and API mode must not pay for starting Django.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

import click


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    import django

    django.setup()


def _tenant(slug: str | None):
    from banks.selectors import tenant_by_slug, tenant_list

    if slug:
        tenant = tenant_by_slug(slug=slug)
        if tenant is None:
            raise click.ClickException(f"no tenant {slug!r}")
        return tenant
    tenants = list(tenant_list()[:2])
    if len(tenants) != 1:
        raise click.ClickException("name the tenant with --tenant")
    return tenants[0]


def _bank(tenant, slug: str | None):
    """The bank ``slug`` of ``tenant``, ``None`` when no slug is given; refused when there is no such bank."""
    from banks.selectors import tenant_bank_get

    bank = tenant_bank_get(tenant=tenant, slug=slug) if slug else None
    if slug and bank is None:
        raise click.ClickException(f"no bank {slug!r} in tenant {tenant.slug!r}")
    return bank


@contextmanager
def _as_client_errors():
    """A refusal by a server service leaves the CLI like the same refusal through the API: its code, detail, extra."""
    from memoryhub_client.errors import MemoryHubError

    from memoryhub.exceptions import MemoryHubError as ServerError

    try:
        yield
    except ServerError as exc:
        raise MemoryHubError(exc.detail, code=exc.default_code, extra=exc.extra, status_code=exc.status_code) from None


def _key_payload(issued) -> dict:
    api_key = issued.api_key
    return {
        "prefix": api_key.prefix,
        "name": api_key.name,
        "bank": api_key.bank.slug if api_key.bank_id else None,
        "scopes": api_key.scopes,
        "key": issued.raw_key,
    }


def tenant_create(*, slug: str, name: str, admin_key: bool) -> dict:
    _setup()
    from banks.selectors import tenant_slug_taken
    from banks.services.api_keys import api_key_issue
    from banks.services.banks import tenant_create as create
    from memoryhub.tenancy import tenant_scope

    if tenant_slug_taken(slug=slug):
        raise click.ClickException(f"tenant {slug!r} exists")
    tenant = create(slug=slug, name=name)
    data = {"slug": tenant.slug, "name": tenant.name}
    if admin_key:
        with tenant_scope(tenant.pk):
            scopes = ["read", "write", "admin"]
            issued = api_key_issue(tenant=tenant, name="admin", scopes=scopes, actor="cli")
            data.update(_key_payload(issued))
    return data


def bank_create(*, tenant_slug: str | None, slug: str, name: str | None, description: str | None) -> dict:
    _setup()
    from banks.selectors import tenant_bank_get
    from banks.services.banks import bank_create as create
    from memoryhub.tenancy import tenant_scope

    tenant = _tenant(tenant_slug)
    if tenant_bank_get(tenant=tenant, slug=slug) is not None:
        raise click.ClickException(f"bank {slug!r} exists in tenant {tenant.slug!r}")
    with tenant_scope(tenant.pk):
        bank = create(tenant=tenant, slug=slug, name=name or "", description=description or "")
    return {"slug": bank.slug, "name": bank.name, "tenant": tenant.slug}


def key_create(*, tenant_slug: str | None, name: str, bank_slug: str | None, scopes: list[str],
               expires_at=None) -> dict:  # fmt: skip
    _setup()
    from banks.services.api_keys import api_key_issue
    from memoryhub.tenancy import tenant_scope

    tenant = _tenant(tenant_slug)
    bank = _bank(tenant, bank_slug)
    with _as_client_errors(), tenant_scope(tenant.pk):
        issued = api_key_issue(tenant=tenant, name=name, bank=bank, scopes=scopes, expires_at=expires_at,
                               actor="cli")  # fmt: skip
        return {**_key_payload(issued), "expires_at": issued.api_key.expires_at}


def key_revoke(*, tenant_slug: str | None, prefix: str) -> None:
    _setup()
    from banks.selectors import api_key_by_prefix
    from banks.services.api_keys import api_key_revoke
    from memoryhub.tenancy import tenant_scope

    tenant = _tenant(tenant_slug)
    api_key = api_key_by_prefix(tenant=tenant, prefix=prefix)
    if api_key is None:
        raise click.ClickException(f"no key {prefix!r} in tenant {tenant.slug!r}")
    with tenant_scope(tenant.pk):
        api_key_revoke(api_key=api_key, actor="cli")


def erase(*, tenant_slug: str | None, bank_slug: str | None, subject: str) -> dict:
    """Erase now, in this process (no worker needed); a queued copy of the job finds it done."""
    _setup()
    from django.db import transaction

    from beliefs.services.forget.subjects import erasure_request_create, erasure_request_run
    from memoryhub.tenancy import tenant_scope

    tenant = _tenant(tenant_slug)
    bank = _bank(tenant, bank_slug)
    with tenant_scope(tenant.pk):
        with transaction.atomic():
            request = erasure_request_create(tenant=tenant, bank=bank, subject=subject, actor="cli")
        done = erasure_request_run(request_id=request.pk)
    return {"id": done.pk, "status": done.status, "scope": done.scope, "receipt": done.receipt}
