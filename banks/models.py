"""Tenants, their members, memory banks and API keys.

A ``Bank`` is the unit of memory isolation: every memory row carries its ``tenant_id``
and ``bank_id``, and every query is resolved through ``banks.scoping``.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from guardian.models import GroupObjectPermissionBase, UserObjectPermissionBase

#: The longest maximum a tenant may set for its keys' lifetime (ten years).
MAX_API_KEY_LIFETIME_DAYS = 3650

slug_validator = RegexValidator(
    r"^[a-z0-9][a-z0-9-]{0,62}$", "Use 1-63 lower-case letters, digits or hyphens, starting with a letter or digit."
)


class Tenant(models.Model):
    """An organisation; nothing is ever shared between tenants."""

    name = models.CharField(max_length=200)
    slug = models.CharField(max_length=63, unique=True, validators=[slug_validator])
    max_api_key_lifetime_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_API_KEY_LIFETIME_DAYS)],
        help_text="Longest an API key of this tenant may live, in days; empty: keys may never expire.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # Installation operators: the staff page (every tenant, a new tenant, break-glass). Not implied by is_staff.
        permissions = [("manage_tenants", "Can list and create tenants and break glass into one")]

    def __str__(self) -> str:
        return self.slug


class Membership(models.Model):
    """A user's role in a tenant. Tenant admins see every bank of their tenant."""

    class Role(models.TextChoices):
        ADMIN = "admin", "Admin"
        ANALYST = "analyst", "Analyst"
        VIEWER = "viewer", "Viewer"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "user"], name="%(app_label)s_%(class)s_unique_tenant_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.tenant} ({self.role})"


class Bank(models.Model):
    """A memory bank: episodes, facts and beliefs that are recalled together."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="banks")
    slug = models.CharField(max_length=63, validators=[slug_validator])
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    background = models.TextField(blank=True, default="", help_text="Standing context about what this bank holds.")
    policy = models.JSONField(default=dict, blank=True, help_text="Per-bank settings (defense, retention, thresholds).")
    # A large bank's own vector index (beliefs.services.vector_indexes), kept here so that recall knows of
    # it from the bank row it already holds.
    vector_index_lists = models.PositiveIntegerField(
        null=True, blank=True, help_text="Lists of the bank's own IVFFlat vector index; empty when it has none."
    )
    vector_index_episodes = models.PositiveIntegerField(
        default=0, help_text="Episodes the bank held when its own vector index was built."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "slug"], name="%(app_label)s_%(class)s_unique_tenant_slug"),
        ]
        ordering = ["tenant_id", "slug"]
        # Object permissions behind the per-bank roles (banks.permissions.Role): view_bank = viewer,
        # + review_bank = reviewer, + change_bank and admin_bank = bank admin.
        permissions = [
            ("review_bank", "Can decide review items of the bank"),
            ("admin_bank", "Can administer the bank (policy, keys, erasure)"),
        ]

    def __str__(self) -> str:
        return f"{self.tenant_id}/{self.slug}"


class BankUserObjectPermission(UserObjectPermissionBase):
    """Direct-FK guardian table: rows go away with their bank (no orphans)."""

    content_object = models.ForeignKey(Bank, on_delete=models.CASCADE)


class BankGroupObjectPermission(GroupObjectPermissionBase):
    content_object = models.ForeignKey(Bank, on_delete=models.CASCADE)


#: ``read`` recalls and lists; ``write`` retains and imports; ``review`` decides review items and records
#: analyst verdicts (dismissals, incidents, contests): a human gate that agent keys do not get by default;
#: ``admin`` changes policy and keys and implies the other three (an admin key could mint any of them anyway).
API_KEY_SCOPES = ("read", "write", "review", "admin")


def default_scopes() -> list[str]:
    return ["read", "write"]


class ApiKey(models.Model):
    """An agent credential. Only a SHA-256 hash of the secret is stored; ``prefix`` finds the row."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="api_keys")
    bank = models.ForeignKey(
        Bank,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="api_keys",
        help_text="When set, the key can reach this bank only.",
    )
    name = models.CharField(max_length=200)
    prefix = models.CharField(max_length=16, unique=True)
    secret_hash = models.CharField(max_length=64)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # A key issued by another key: it never has more scopes, a later expiry or a higher rate limit than this
    # parent, and goes (revoked or deleted) with it.
    created_by_key = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="issued_keys",
        help_text="The API key that issued this one, if a key did.",
    )  # fmt: skip
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    scopes = models.JSONField(default=default_scopes, help_text="Any of read, write, review, admin.")
    expires_at = models.DateTimeField(null=True, blank=True)
    rate_limit_per_minute = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Requests per minute (at most the tenant's limit); empty uses MEMORYHUB_RATE_LIMIT_PER_MINUTE.",
    )

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix})"

    @property
    def is_active(self) -> bool:
        from django.utils import timezone

        return self.revoked_at is None and (self.expires_at is None or self.expires_at > timezone.now())

    def allows(self, scope: str) -> bool:
        """``admin`` implies every scope; ``write`` and ``review`` each imply ``read``; only they give ``review``."""
        return scope_allows(self.scopes or [], scope)


def scope_allows(granted, scope: str) -> bool:
    """Whether the scopes ``granted`` include ``scope`` (see ``API_KEY_SCOPES`` for what implies what)."""
    granted = set(granted)
    return scope in granted or "admin" in granted or (scope == "read" and bool(granted & {"write", "review"}))


class Invitation(models.Model):
    """A tenant admin's offer of membership, which the invitee accepts (or declines) with a one-time link.

    Only a SHA-256 digest of the link's secret is stored. Nobody joins a tenant without
    accepting; the admin never learns from the form whether an account exists.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=16, choices=Membership.Role.choices, default=Membership.Role.ANALYST)
    invited_as = models.CharField(max_length=254, help_text="The name or e-mail the admin addressed it to (a note).")
    token_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    closed_at = models.DateTimeField(null=True, blank=True, help_text="Declined by the invitee or withdrawn.")

    class Meta:
        indexes = [models.Index(fields=["tenant", "created_at"], name="banks_invite_tenant_created")]

    def __str__(self) -> str:
        return f"invitation to {self.tenant} for {self.invited_as} ({self.role})"

    @property
    def is_open(self) -> bool:
        from django.utils import timezone

        return self.accepted_at is None and self.closed_at is None and self.expires_at > timezone.now()


class PasswordChangeRequired(models.Model):
    """A person who signed in with a first password someone else generated must choose their own first."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"password change required for user {self.user_id}"
