"""Bank API serializers: they translate, nothing more."""

from rest_framework import serializers

from banks.models import Bank, slug_validator
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
