"""Path converters: a URL segment that cannot be a valid identifier never reaches a view (404)."""

from __future__ import annotations

BANK_SLUG = r"[a-z0-9][a-z0-9-]{0,62}"
NAME = r"[a-z0-9][a-z0-9_-]{0,62}"
KEY_PREFIX = r"[A-Za-z0-9_-]{1,16}"


class _Regex:
    regex = ""

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class BankSlugConverter(_Regex):
    regex = BANK_SLUG


class NameConverter(_Regex):
    regex = NAME


class KeyPrefixConverter(_Regex):
    regex = KEY_PREFIX


CONVERTERS = {"bank_slug": BankSlugConverter, "name": NameConverter, "key_prefix": KeyPrefixConverter}
# drf-spectacular: the same patterns in the OpenAPI schema.
SCHEMA_OVERRIDES = {
    "bank_slug": {"type": "string", "pattern": f"^{BANK_SLUG}$"},
    "name": {"type": "string", "pattern": f"^{NAME}$"},
    "key_prefix": {"type": "string", "pattern": f"^{KEY_PREFIX}$"},
}
