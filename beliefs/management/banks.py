"""The banks a maintenance command works on: every bank, one tenant's (``--tenant``) or one bank (``--bank``)."""

from django.db.models import QuerySet

from banks.models import Bank


def add_bank_arguments(parser) -> None:
    parser.add_argument("--tenant", help="tenant slug")
    parser.add_argument("--bank", help="bank slug (with --tenant)")


def selected_banks(tenant: str | None = None, bank: str | None = None) -> QuerySet[Bank]:
    """The banks ``--tenant`` and ``--bank`` select (all when neither is given), in id order, with their tenants."""
    banks = Bank.objects.select_related("tenant").order_by("id")
    if tenant:
        banks = banks.filter(tenant__slug=tenant)
    if bank:
        banks = banks.filter(slug=bank)
    return banks
