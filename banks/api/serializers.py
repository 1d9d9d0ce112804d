"""Bank API serializers: they translate, nothing more."""

from rest_framework import serializers

from banks.models import API_KEY_SCOPES, ApiKey, Bank, slug_validator
from banks.policy import validate_policy
from memoryhub.serializers import StrictInputSerializer


class BankCreateInputSerializer(StrictInputSerializer):
    slug = serializers.CharField(max_length=63, validators=[slug_validator])
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    description = serializers.CharField(required=False, allow_blank=True, default="", max_length=10000)
    background = serializers.CharField(required=False, allow_blank=True, default="", max_length=20000)
    policy = serializers.DictField(required=False, default=dict)
    tenant = serializers.CharField(
        required=False, max_length=63, help_text="Tenant slug; needed only by people in several tenants."
    )

    def validate_policy(self, value: dict) -> dict:
        return validate_policy(value)


class BankUpdateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(required=False, allow_blank=True, max_length=10000)
    background = serializers.CharField(required=False, allow_blank=True, max_length=20000)
    policy = serializers.DictField(required=False, help_text="Replaces the whole policy; see banks.policy for keys.")

    def validate_policy(self, value: dict) -> dict:
        return validate_policy(value)


class BankOutputSerializer(serializers.ModelSerializer):
    tenant = serializers.CharField(source="tenant.slug", read_only=True)

    class Meta:
        model = Bank
        fields = ["slug", "name", "tenant", "description", "background", "policy", "created_at", "updated_at"]


class ApiKeyInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=200)
    bank = serializers.CharField(required=False, max_length=63, help_text="Limit the key to this bank (slug).")
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=API_KEY_SCOPES), min_length=1, required=False, default=["read", "write"]
    )
    expires_at = serializers.DateTimeField(
        required=False,
        help_text="When the key stops working. Without it: never, or the longest the tenant allows (or, for a key "
        "issued by a key, the issuing key's expiry).",
    )
    rate_limit_per_minute = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=100_000,
        help_text="At most the tenant's rate limit (and the issuing key's own); empty: the server's default.",
    )
    tenant = serializers.CharField(required=False, max_length=63)


class ApiKeyOutputSerializer(serializers.ModelSerializer):
    bank = serializers.CharField(source="bank.slug", default=None, read_only=True, allow_null=True)
    active = serializers.BooleanField(source="is_active", read_only=True)
    created_by = serializers.CharField(
        source="created_by.username", default=None, read_only=True, allow_null=True,
        help_text="The person who issued it.",
    )  # fmt: skip
    created_by_key = serializers.CharField(
        source="created_by_key.prefix", default=None, read_only=True, allow_null=True,
        help_text="The prefix of the API key that issued it.",
    )  # fmt: skip

    class Meta:
        model = ApiKey
        fields = [
            "prefix",
            "name",
            "bank",
            "scopes",
            "active",
            "expires_at",
            "revoked_at",
            "last_used_at",
            "rate_limit_per_minute",
            "created_at",
            "created_by",
            "created_by_key",
        ]


class ApiKeyIssuedSerializer(ApiKeyOutputSerializer):
    key = serializers.CharField(help_text="The secret, shown once.")

    class Meta(ApiKeyOutputSerializer.Meta):
        fields = [*ApiKeyOutputSerializer.Meta.fields, "key"]
