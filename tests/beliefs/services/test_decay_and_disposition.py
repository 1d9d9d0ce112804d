"""Decay over injected time, reconfirmation, and the bank's disposition traits."""

import pytest

from beliefs.engine.confidence import EvidencePoint, assess, decay_factor
from beliefs.models import Belief, BeliefVersion
from beliefs.services.consolidate import consolidate
from beliefs.services.decay import beliefs_decay
from beliefs.services.retain import RetainItem
from tests.helpers.consolidation import T0, days, dismissal, remember

pytestmark = pytest.mark.django_db


def test_confidence_rule_by_the_numbers():
    points = [EvidencePoint("supports", 1.0, T0 + days(n)) for n in range(3)]
    fresh = assess(points, now=T0 + days(10), prior_strength=1.0, horizon_days=90, half_life_days=30)
    assert fresh.confidence == 0.75 and fresh.status == "active"  # 3 / (3 + 0 + 1)
    against = assess(
        [*points, EvidencePoint("contradicts", 1.0, T0 + days(1))],
        now=T0 + days(10),
        prior_strength=1.0,
        horizon_days=90,
        half_life_days=30,
    )
    assert against.confidence == 0.6 and against.status == "contested"  # 3 / (3 + 1 + 1), C >= S/3
    old = assess(points, now=T0 + days(2 + 90 + 30), prior_strength=1.0, horizon_days=90, half_life_days=30)
    assert old.confidence == 0.375 and old.status == "stale"  # one half-life past the horizon
    assert decay_factor(last_confirmed_at=T0, now=T0 + days(90), horizon_days=90, half_life_days=30) == 1.0
    none = assess([], now=T0, prior_strength=1.0, horizon_days=90, half_life_days=30)
    assert none.status == "retracted" and none.confidence == 0.0


def test_unconfirmed_belief_decays_to_stale_and_reconfirmation_restores_it(caller):
    remember(caller.bank, [dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(4)], now=T0 + days(4))
    belief = Belief.objects.get(bank=caller.bank)
    assert (belief.status, belief.confidence) == ("active", 0.8)

    assert beliefs_decay(bank=caller.bank, now=T0 + days(60)) == 0  # inside the 90-day horizon
    assert beliefs_decay(bank=caller.bank, now=T0 + days(3 + 90 + 30)) == 1
    belief.refresh_from_db()
    assert belief.status == "stale" and belief.confidence == 0.4
    version = belief.versions.order_by("-version").first()
    assert (version.cause, version.old_confidence, version.new_confidence) == ("decayed", 0.8, 0.4)
    assert beliefs_decay(bank=caller.bank, now=T0 + days(3 + 90 + 30)) == 0  # idempotent at the same time

    remember(caller.bank, [dismissal("CpuSpike", "web-1", T0 + days(125))], now=T0 + days(125))
    belief.refresh_from_db()
    assert belief.status == "active" and belief.proof_count == 5 and belief.confidence > 0.8
    assert belief.versions.order_by("-version").first().cause == "restored"


def test_decay_horizon_is_per_bank(caller):
    caller.bank.policy = {"decay": {"horizon_days": 10, "half_life_days": 5}}
    caller.bank.save()
    remember(caller.bank, [dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(2)], now=T0 + days(2))
    assert beliefs_decay(bank=caller.bank, now=T0 + days(1 + 10 + 5)) == 1
    assert Belief.objects.get(bank=caller.bank).status == "stale"


def test_skeptical_bank_needs_more_evidence_and_moves_slower(caller, other_caller):
    skeptic = other_caller.bank
    skeptic.policy = {"disposition": {"skepticism": 1.0}}
    skeptic.save()
    items = [dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(4)]
    remember(caller.bank, items)
    remember(skeptic, items)
    assert Belief.objects.get(bank=caller.bank).proof_count == 4
    assert not Belief.objects.filter(bank=skeptic).exists()  # needs 1 + 4 = 5 episodes

    more = [dismissal("CpuSpike", "web-1", T0 + days(10))]
    remember(caller.bank, more)
    remember(skeptic, more)
    trusting, doubting = Belief.objects.get(bank=caller.bank), Belief.objects.get(bank=skeptic)
    assert trusting.proof_count == doubting.proof_count == 5
    assert trusting.confidence == round(5 / 6, 4) and doubting.confidence == round(5 / 7.5, 4)


def test_literal_bank_discounts_hedged_statements(caller, other_caller):
    literal = other_caller.bank
    literal.policy = {"disposition": {"literalism": 1.0}}
    literal.save()
    items = [RetainItem(content=f"Maybe Frank uses Emacs (note {n}).", occurred_at=T0 + days(n)) for n in range(3)]
    remember(caller.bank, items)
    remember(literal, items)
    relaxed = Belief.objects.get(bank=caller.bank)
    assert relaxed.support_weight == 1.5 and relaxed.confidence == round(1.5 / 2.5, 4)  # each hedge counts 0.5
    assert not Belief.objects.filter(bank=literal).exists()  # hedges carry no weight at all: nothing forms


def test_untrusted_source_weighs_less(caller):
    remember(
        caller.bank,
        [RetainItem(content=f"Gail uses Linux ({n}).", occurred_at=T0 + days(n), provenance="agent") for n in range(2)],
    )
    belief = Belief.objects.get(bank=caller.bank)
    assert belief.support_weight == 1.0 and belief.proof_count == 2  # agent-written evidence counts half
    assert BeliefVersion.objects.filter(belief=belief).count() == 1


def test_consolidation_is_paused_and_throttled_by_policy(caller):
    caller.bank.policy = {"background": {"paused": True}}
    caller.bank.save()
    remember(caller.bank, [dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(3)])
    assert not Belief.objects.filter(bank=caller.bank).exists()
    caller.bank.policy = {"background": {"max_episodes_per_run": 10}}
    caller.bank.save()
    from beliefs.services.extract import bank_extract

    assert bank_extract(bank=caller.bank).episodes == 3
    result = consolidate(bank=caller.bank, now=T0 + days(5), limit=2)
    assert result.facts == 2 and result.remaining == 1
    assert consolidate(bank=caller.bank, now=T0 + days(5)).facts == 1
    assert Belief.objects.get(bank=caller.bank).proof_count == 3
