"""A bank worth fuzzing: episodes, facts, beliefs with evidence, a mental model and review items."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from beliefs.models import Belief, Episode, Fact, MentalModel, RetainBatch
from beliefs.services.mental_models import mental_model_create
from beliefs.services.retain import RetainItem, retain
from tests.helpers.callers import Caller, make_caller
from tests.helpers.consolidation import T0, days, dismissal, remember
from workloads.distill import lessons_submit


@dataclass
class FuzzBank:
    caller: Caller
    ids: dict[str, list]

    @property
    def bank(self):
        return self.caller.bank

    @property
    def raw_key(self):
        return self.caller.raw_key


@pytest.fixture(scope="module")
def _seeded(django_db_setup, django_db_blocker):
    """Built once and committed; each operation's test then runs in a transaction that is rolled back."""
    from django.conf import settings
    from django.core.management import call_command
    from django.test import override_settings

    unlimited = override_settings(MEMORYHUB={**settings.MEMORYHUB, "TENANT_RATE_LIMIT_PER_MINUTE": 10**7})
    unlimited.enable()  # thousands of requests a minute from one tenant: the fuzzer is not what limits are about
    with django_db_blocker.unblock():
        seeded = _seed()
    yield seeded
    with django_db_blocker.unblock():
        call_command("flush", interactive=False, verbosity=0)
    unlimited.disable()


@pytest.fixture
def fuzz_bank(_seeded, db) -> FuzzBank:
    return _seeded


def _seed() -> FuzzBank:
    caller = make_caller()
    caller.api_key.rate_limit_per_minute = 10**7  # the fuzzer is not what the rate limit is about
    caller.api_key.save(update_fields=["rate_limit_per_minute"])
    remember(caller.bank, [dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(3)])
    retain(
        bank=caller.bank,
        items=[
            RetainItem(content=f"Ticket INC-{n} about VPN drops for alice@example.com", subject="customer:alice")
            for n in range(5)
        ],
    )
    mental_model_create(
        bank=caller.bank, name="standing", question="Which alerts are benign?", belief_filter={"object": "benign"}
    )
    episodes = list(Episode.objects.filter(bank=caller.bank).values_list("pk", flat=True))
    items = lessons_submit(
        bank=caller.bank, lessons=[{"text": "Check backups first", "evidence_episode_ids": episodes[:1]}]
    )
    return FuzzBank(
        caller=caller,
        ids={
            "episode_id": episodes,
            "fact_id": list(Fact.objects.filter(bank=caller.bank).values_list("pk", flat=True)),
            "belief_id": list(Belief.objects.filter(bank=caller.bank).values_list("pk", flat=True)),
            "batch_id": list(RetainBatch.objects.filter(bank=caller.bank).values_list("pk", flat=True)),
            "item_id": [item.pk for item in items],
            "name": list(MentalModel.objects.filter(bank=caller.bank).values_list("name", flat=True)),
        },
    )
