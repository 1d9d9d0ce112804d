"""Issue, authenticate and revoke API keys.

A key looks like ``mh_<prefix>_<secret>``. The prefix is stored in clear to find the
row; the whole key is stored only as a SHA-256 digest (keys carry 256 bits of entropy,
so a fast hash is the right tool) and compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from banks.models import ApiKey, Bank, Tenant, default_scopes

_LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class IssuedKey:
    api_key: ApiKey
    raw_key: str  # shown once, never stored


def _digest(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode()).hexdigest()


def api_key_issue(
    *,
    tenant: Tenant,
    name: str,
    bank: Bank | None = None,
    created_by=None,
    scopes: list[str] | None = None,
    expires_at: datetime | None = None,
    rate_limit_per_minute: int | None = None,
) -> IssuedKey:
    """Create a key; the returned ``raw_key`` is the only copy of the secret."""
    if bank is not None and bank.tenant_id != tenant.pk:
        raise ValueError("bank belongs to another tenant")
    prefix = secrets.token_hex(4)
    raw_key = f"mh_{prefix}_{secrets.token_urlsafe(32)}"
    api_key = ApiKey.objects.create(
        tenant=tenant,
        bank=bank,
        name=name,
        prefix=prefix,
        secret_hash=_digest(raw_key),
        created_by=created_by,
        scopes=sorted(set(scopes or default_scopes())),
        expires_at=expires_at,
        rate_limit_per_minute=rate_limit_per_minute,
    )
    return IssuedKey(api_key=api_key, raw_key=raw_key)


def api_key_revoke(*, api_key: ApiKey) -> ApiKey:
    """Revoke a key; revoking twice keeps the first revocation time."""
    ApiKey.objects.filter(pk=api_key.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    api_key.refresh_from_db(fields=["revoked_at"])
    return api_key


def api_key_issue_and_audit(*, request=None, actor: str | None = None, **issue) -> IssuedKey:
    """Issue a key (``api_key_issue``'s arguments) and audit it: what the API and the key pages both call."""
    from audit.services import audit_record

    issued = api_key_issue(**issue)
    audit_record(request=request, actor=actor, tenant=issued.api_key.tenant_id, bank=issued.api_key.bank,
                 action="api_key.issued", target=f"api_key:{issued.api_key.prefix}")  # fmt: skip
    return issued


def api_key_revoke_and_audit(*, request=None, actor: str | None = None, api_key: ApiKey) -> ApiKey:
    """Revoke a key and audit it (a second revocation keeps the first time and is audited again)."""
    from audit.services import audit_record

    api_key = api_key_revoke(api_key=api_key)
    audit_record(request=request, actor=actor, tenant=api_key.tenant_id, bank=api_key.bank,
                 action="api_key.revoked", target=f"api_key:{api_key.prefix}")  # fmt: skip
    return api_key


def api_key_authenticate(*, raw_key: str) -> ApiKey | None:
    """The active key matching ``raw_key``, or ``None``. Records last use (at most once a minute)."""
    parts = raw_key.split("_")
    if len(parts) < 3 or parts[0] != "mh":
        return None
    api_key = ApiKey.objects.select_related("tenant", "bank").filter(prefix=parts[1], revoked_at__isnull=True).first()
    if api_key is None or not hmac.compare_digest(api_key.secret_hash, _digest(raw_key)):
        return None
    now = timezone.now()
    if api_key.expires_at is not None and api_key.expires_at <= now:
        return None
    if api_key.last_used_at is None or now - api_key.last_used_at > _LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=now)
        api_key.last_used_at = now
    return api_key
