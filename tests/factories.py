"""factory_boy factories for tests."""

import factory
from django.contrib.auth import get_user_model

from banks.models import Bank, Tenant


class TenantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tenant

    slug = factory.Sequence(lambda n: f"tenant-{n}")
    name = factory.Sequence(lambda n: f"Tenant {n}")


class BankFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Bank

    tenant = factory.SubFactory(TenantFactory)
    slug = factory.Sequence(lambda n: f"bank-{n}")
    name = factory.LazyAttribute(lambda bank: bank.slug)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "secret-password")
