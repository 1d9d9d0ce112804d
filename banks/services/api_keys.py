"""Issue, authenticate and revoke API keys.

A key looks like ``mh_<prefix>_<secret>``. The prefix is stored in clear to find the
row; the whole key is stored only as a SHA-256 digest (keys carry 256 bits of entropy,
so a fast hash is the right tool) and compared in constant time.

A key is held to whoever made it:

- a person grants at most what their role allows (``GRANTABLE_SCOPES``: a bank admin can
  give ``read``, ``write`` and ``review``, not the tenant-admin powers ``admin`` opens, such
  as export and the audit API);
- a key issued by a key (``created_by_key``) has no scope, bank, expiry or rate limit
  beyond its parent's, and revoking a key revokes every key it issued;
- the tenant's ``max_api_key_lifetime_days`` bounds every key's expiry (a key asked for
  without one gets the longest allowed); the rate limit is at most the tenant's;
- keys whose creator leaves the tenant or loses the role that let them issue it are
  revoked (``api_keys_revoke_created_by``, called by the membership and role services),
  and a key whose creator's account is deactivated stops authenticating.

Rows are written through owner functions (``banks.services.owner_functions``): the request
role cannot insert or revoke a key of a tenant its session is not scoped to.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from banks.models import API_KEY_SCOPES, ApiKey, Bank, Tenant, default_scopes
from banks.permissions import Role
from banks.services import owner_functions
from memoryhub.compiled import compiled_rows

_LAST_USED_RESOLUTION = timedelta(minutes=1)

#: The scopes a person may put on a key, by their role where the key will reach (bank admins issue bank keys only).
GRANTABLE_SCOPES: dict[Role, tuple[str, ...]] = {
    Role.TENANT_ADMIN: API_KEY_SCOPES,
    Role.BANK_ADMIN: ("read", "write", "review"),
}


@dataclass(frozen=True)
class IssuedKey:
    api_key: ApiKey
    raw_key: str  # shown once, never stored


def _digest(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode()).hexdigest()


def grantable_scopes(*, granter_role: Role | None = None, created_by_key: ApiKey | None = None) -> tuple[str, ...]:
    """The scopes a person with ``granter_role``, or the key ``created_by_key``, may put on a new key.

    Neither: an operator (the command line on the database host, the admin site, seeding), who may grant any.
    """
    if created_by_key is not None:
        return tuple(scope for scope in API_KEY_SCOPES if created_by_key.allows(scope))
    if granter_role is not None:
        return GRANTABLE_SCOPES.get(Role(granter_role), ())
    return API_KEY_SCOPES


def api_key_max_rate_limit() -> int:
    """The highest per-key rate limit: a key's requests also count against its tenant's window, so more is moot."""
    return settings.MEMORYHUB["TENANT_RATE_LIMIT_PER_MINUTE"]


def api_key_issue(*, actor: str | None = None, **issue) -> IssuedKey:
    """Issue a key (``api_key_insert``'s arguments); audited as ``api_key.issued`` when ``actor`` is given.

    What the API, the key pages and the command line call, each naming who asked.
    """
    from audit.services import audit_record

    with owner_functions.tenant_writes(issue["tenant"].pk):
        issued = api_key_insert(**issue)
        key = issued.api_key
        if actor is not None:
            details = {"scopes": key.scopes, "expires_at": key.expires_at.isoformat() if key.expires_at else None}
            if key.created_by_key_id:
                details["issued_by_key"] = issue["created_by_key"].prefix
            audit_record(actor=actor, tenant=key.tenant_id, bank=key.bank, action="api_key.issued",
                         target=f"api_key:{key.prefix}", details=details)  # fmt: skip
    return issued


def api_key_insert(
    *,
    tenant: Tenant,
    name: str,
    bank: Bank | None = None,
    created_by=None,
    created_by_key: ApiKey | None = None,
    granter_role: Role | None = None,
    scopes: list[str] | None = None,
    expires_at: datetime | None = None,
    rate_limit_per_minute: int | None = None,
) -> IssuedKey:
    """Create a key no more powerful and no longer-lived than its issuer may grant; ``raw_key`` is the only copy.

    ``created_by`` is the person, ``created_by_key`` the key that asked for it; ``granter_role`` the person's
    role where the key reaches (omitted for operators). Raises ``ApiKeyScopeNotGrantable`` (403),
    ``ApiKeyLifetimeExceeded`` or ``ApiKeyRateLimitTooHigh`` (400) and then writes nothing.
    """
    from memoryhub.exceptions import ApiKeyScopeNotGrantable  # not at import: DRF's settings import this module

    if bank is not None and bank.tenant_id != tenant.pk:
        raise ValueError("bank belongs to another tenant")
    scopes = sorted(set(scopes or default_scopes()))
    allowed = grantable_scopes(granter_role=granter_role, created_by_key=created_by_key)
    if created_by_key is not None and created_by_key.bank_id is not None and bank != created_by_key.bank:
        raise ApiKeyScopeNotGrantable("A bank-scoped key can only issue keys for its own bank.")
    refused = [scope for scope in scopes if scope not in allowed]
    if refused:
        raise ApiKeyScopeNotGrantable(extra={"refused": refused, "grantable": list(allowed)})
    expires_at = _bounded_expiry(tenant=tenant, parent=created_by_key, expires_at=expires_at)
    rate_limit_per_minute = _bounded_rate_limit(parent=created_by_key, rate_limit_per_minute=rate_limit_per_minute)
    prefix = secrets.token_hex(4)
    raw_key = f"mh_{prefix}_{secrets.token_urlsafe(32)}"
    key_id = owner_functions.call(
        tenant.pk,
        "memoryhub_api_key_insert",
        tenant.pk,
        bank.pk if bank is not None else None,
        name,
        prefix,
        _digest(raw_key),
        getattr(created_by, "pk", None),
        created_by_key.pk if created_by_key is not None else None,
        _jsonb(scopes),
        expires_at,
        rate_limit_per_minute,
    )
    api_key = ApiKey.objects.select_related("tenant", "bank").get(pk=key_id)
    return IssuedKey(api_key=api_key, raw_key=raw_key)


def _jsonb(value):
    from psycopg.types.json import Jsonb

    return Jsonb(value)


def _bounded_expiry(*, tenant: Tenant, parent: ApiKey | None, expires_at: datetime | None) -> datetime | None:
    """``expires_at`` within the tenant's maximum lifetime and the parent key's expiry (the latest allowed if None)."""
    from memoryhub.exceptions import ApiKeyLifetimeExceeded

    now = timezone.now()
    latest = None
    if tenant.max_api_key_lifetime_days:
        latest = now + timedelta(days=tenant.max_api_key_lifetime_days)
    if parent is not None and parent.expires_at is not None:
        latest = parent.expires_at if latest is None else min(latest, parent.expires_at)
    if latest is None:
        return expires_at
    if expires_at is None:
        return latest
    if expires_at > latest:
        raise ApiKeyLifetimeExceeded(
            extra={"latest_expiry": latest.isoformat(), "max_lifetime_days": tenant.max_api_key_lifetime_days}
        )
    return expires_at


def _bounded_rate_limit(*, parent: ApiKey | None, rate_limit_per_minute: int | None) -> int | None:
    from memoryhub.exceptions import ApiKeyRateLimitTooHigh

    highest = api_key_max_rate_limit()
    if parent is not None and parent.rate_limit_per_minute is not None:
        highest = min(highest, parent.rate_limit_per_minute)
        if rate_limit_per_minute is None:
            return parent.rate_limit_per_minute
    if rate_limit_per_minute is not None and not 1 <= rate_limit_per_minute <= highest:
        raise ApiKeyRateLimitTooHigh(extra={"max": highest})
    return rate_limit_per_minute


def api_keys_revoke(*, tenant_id: int, key_ids: list[int]) -> list[int]:
    """Revoke the keys ``key_ids`` of ``tenant_id`` and every key they issued; the ids revoked now (not before)."""
    if not key_ids:
        return []
    rows = owner_functions.call_rows(tenant_id, "memoryhub_api_keys_revoke", tenant_id, list(key_ids))
    return sorted(row[0] for row in rows)


def api_key_revoke(*, api_key: ApiKey, actor: str | None = None) -> ApiKey:
    """Revoke a key and the keys it issued; revoking twice keeps the first revocation time.

    Audited when ``actor`` is given: the key, and each key it issued with the reason (a second
    revocation keeps the first time and is audited again).
    """
    from audit.services import audit_record

    with owner_functions.tenant_writes(api_key.tenant_id):
        revoked = api_keys_revoke(tenant_id=api_key.tenant_id, key_ids=[api_key.pk])
        api_key.refresh_from_db(fields=["revoked_at"])
        if actor is not None:
            audit_record(actor=actor, tenant=api_key.tenant_id, bank=api_key.bank, action="api_key.revoked",
                         target=f"api_key:{api_key.prefix}")  # fmt: skip
            _audit_cascade(actor=actor, ids=[pk for pk in revoked if pk != api_key.pk],
                           reason=f"issuing key api_key:{api_key.prefix} revoked")  # fmt: skip
    return api_key


def api_keys_revoke_created_by(*, tenant: Tenant, user, bank: Bank | None = None, reason: str,
                               actor: str | None = None) -> list[str]:  # fmt: skip
    """Revoke the active keys ``user`` created in ``tenant`` (only ``bank``'s, when given), and the keys those
    issued; each is audited with ``reason``. Returns the prefixes revoked.

    Called when a person leaves a tenant or loses the role that let them issue keys: a key never outlives the
    access of the person who made it.
    """
    keys = ApiKey.objects.filter(tenant=tenant, created_by=user, revoked_at__isnull=True)
    if bank is not None:
        keys = keys.filter(bank=bank)
    with owner_functions.tenant_writes(tenant.pk):
        revoked = api_keys_revoke(tenant_id=tenant.pk, key_ids=list(keys.values_list("pk", flat=True)))
        return _audit_cascade(actor=actor, ids=revoked, reason=reason)


def _audit_cascade(*, actor: str | None, ids: list[int], reason: str) -> list[str]:
    from audit.services import audit_record

    prefixes = []
    for key in ApiKey.objects.filter(pk__in=ids).select_related("bank").order_by("pk"):
        audit_record(actor=actor, tenant=key.tenant_id, bank=key.bank, action="api_key.revoked",
                     target=f"api_key:{key.prefix}", details={"reason": reason})  # fmt: skip
        prefixes.append(key.prefix)
    return prefixes


# Every API request authenticates, and building and compiling this query each time cost Django about four times
# what PostgreSQL spends answering it (1.3 ms of a request's CPU, 0.25 ms from the compiled text). The key's tenant
# and bank load on first use; the request path reads their ids only. The stand-in is no prefix (eight hex digits).
_active_keys = compiled_rows(
    lambda prefix: (
        ApiKey.objects.filter(prefix=prefix, revoked_at__isnull=True)
        .filter(Q(created_by__isnull=True) | Q(created_by__is_active=True))
        .order_by("pk")[:1]
    ),
    prefix="<prefix stand-in>",
)


def _active_key(*, prefix: str) -> ApiKey | None:
    """The key of this prefix if it is not revoked and its creator's account (if a person made it) is active."""
    keys = _active_keys(prefix=prefix)
    return keys[0] if keys else None


def api_key_authenticate(*, raw_key: str) -> ApiKey | None:
    """The active key matching ``raw_key``, or ``None``. Records last use (at most once a minute).

    A key whose creator's account was deactivated no longer authenticates.
    """
    parts = raw_key.split("_")
    if len(parts) < 3 or parts[0] != "mh":
        return None
    api_key = _active_key(prefix=parts[1])
    if api_key is None or not hmac.compare_digest(api_key.secret_hash, _digest(raw_key)):
        return None
    now = timezone.now()
    if api_key.expires_at is not None and api_key.expires_at <= now:
        return None
    if api_key.last_used_at is None or now - api_key.last_used_at > _LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=now)
        api_key.last_used_at = now
    return api_key
