"""Consolidation: facts become evidence-backed, versioned beliefs; contradictions invalidate, never delete."""

from datetime import UTC, datetime

import psycopg
import pytest
from django.db import connection

from beliefs.models import Belief, BeliefVersion, Evidence, Fact
from beliefs.services.consolidate import consolidate
from beliefs.services.extract import bank_extract
from beliefs.services.retain import RetainItem, retain
from tests.helpers.callers import make_caller
from tests.helpers.consolidation import T0, alert, days, dismissal, incident, remember

pytestmark = pytest.mark.django_db


def test_repeated_alerts_become_one_belief_with_proof_count_and_exact_quotes(caller):
    remember(caller.bank, [alert("DiskIOHigh", "db-3", T0 + days(n)) for n in range(12)])

    belief = Belief.objects.get(bank=caller.bank, predicate="fires on")
    assert belief.statement == "alert DiskIOHigh fires on db-3"
    assert belief.proof_count == 12 and belief.status == "active"
    evidence = list(Evidence.objects.filter(belief=belief).select_related("episode"))
    assert len(evidence) == 12
    for row in evidence:
        assert row.episode.content[row.quote_start : row.quote_end] == row.quote
        assert "DiskIOHigh" in row.quote
    (version,) = BeliefVersion.objects.filter(belief=belief)
    assert version.cause == "formed" and version.new_proof_count == 12 and len(version.evidence_ids) == 12


def test_belief_needs_min_support_before_it_forms(caller):
    remember(caller.bank, [dismissal("CpuSpike", "web-1", T0)])
    assert not Belief.objects.filter(bank=caller.bank).exists()  # default skepticism needs 2 episodes
    assert Fact.objects.filter(bank=caller.bank, object="benign").count() == 1

    remember(caller.bank, [dismissal("CpuSpike", "web-1", T0 + days(1), reason="load test")])
    belief = Belief.objects.get(bank=caller.bank, object="benign")
    assert belief.proof_count == 2
    assert Evidence.objects.filter(belief=belief).count() == 2


def test_rerunning_consolidation_on_unchanged_input_changes_nothing(caller):
    remember(caller.bank, [alert("DiskIOHigh", "db-3", T0 + days(n)) for n in range(5)])
    before = list(Belief.objects.filter(bank=caller.bank).values("id", "version", "confidence", "updated_at"))
    versions = BeliefVersion.objects.count()

    result = consolidate(bank=caller.bank, now=T0 + days(6))
    assert result.facts == 0 and result.beliefs_changed == 0
    # Even re-folding every fact from scratch writes nothing new.
    Fact.objects.filter(bank=caller.bank).update(consolidated_at=None)
    again = consolidate(bank=caller.bank, now=T0 + days(6))
    assert again.facts == 5 and again.beliefs_changed == 0 and again.beliefs_formed == 0
    assert list(Belief.objects.filter(bank=caller.bank).values("id", "version", "confidence", "updated_at")) == before
    assert BeliefVersion.objects.count() == versions


def test_new_value_in_one_value_slot_invalidates_old_fact_and_belief_without_deleting(caller):
    texts = [
        ("Alice lives in Paris.", T0),
        ("Alice lives in Paris, near the river.", T0 + days(10)),
        ("Alice moved to Berlin last month.", T0 + days(200)),
        ("Alice lives in Berlin and loves it.", T0 + days(210)),
    ]
    remember(caller.bank, [RetainItem(content=t, occurred_at=at) for t, at in texts])

    paris = Belief.objects.get(bank=caller.bank, object_key="paris")
    berlin = Belief.objects.get(bank=caller.bank, object_key="berlin")
    # "moved ... last month", said on 24 July 2026: the move is dated to the month it names.
    moved_at = datetime(2026, 6, 1, tzinfo=UTC)
    assert paris.status == "invalidated" and paris.valid_to == moved_at
    assert berlin.status == "active" and berlin.valid_to is None
    assert Evidence.objects.filter(belief=paris, stance="contradicts").count() == 2
    old_facts = Fact.objects.filter(bank=caller.bank, object_key="paris")
    assert old_facts.count() == 2  # kept, only closed
    assert all(f.invalid_at == moved_at and f.expired_at is not None for f in old_facts)
    assert Fact.objects.filter(bank=caller.bank, object_key="berlin", invalid_at__isnull=True).count() == 2


def test_contradiction_lowers_confidence_and_contests(caller):
    remember(caller.bank, [dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(4)])
    belief = Belief.objects.get(bank=caller.bank, object="benign")
    confident = belief.confidence
    assert belief.status == "active"

    remember(caller.bank, [incident("CpuSpike", "web-1", T0 + days(5))])
    belief.refresh_from_db()
    # One-value verdict slot: a newer "genuine" closes the benign belief.
    assert belief.status == "invalidated" and belief.confidence < confident
    last = BeliefVersion.objects.filter(belief=belief).order_by("-version").first()
    assert last.cause == "invalidated" and last.old_status == "active" and last.new_status == "invalidated"
    contradicting = Evidence.objects.get(belief=belief, stance="contradicts")
    assert last.evidence_ids == [contradicting.pk]
    assert "real outage" in contradicting.quote

    # Dismissed again afterwards: the belief is restored, still carrying the contradiction.
    remember(caller.bank, [dismissal("CpuSpike", "web-1", T0 + days(7 + n)) for n in range(3)])
    belief.refresh_from_db()
    assert belief.status in {"active", "contested"} and belief.proof_count == 7 and belief.contradiction_count == 1
    assert BeliefVersion.objects.filter(belief=belief, cause="restored").exists()


def test_negated_statement_contradicts_and_hedged_counts_less(caller):
    remember(
        caller.bank,
        [
            RetainItem(content="Bob uses Vim.", occurred_at=T0),
            RetainItem(content="Bob uses Vim every day.", occurred_at=T0 + days(1)),
            RetainItem(content="Bob uses Vim at home.", occurred_at=T0 + days(2)),
        ],
    )
    belief = Belief.objects.get(bank=caller.bank, object_key="vim")
    assert belief.proof_count == 3 and belief.status == "active"
    remember(caller.bank, [RetainItem(content="Bob does not use Vim anymore.", occurred_at=T0 + days(3))])
    belief.refresh_from_db()
    assert belief.status == "contested" and belief.contradiction_count == 1


def test_contradictory_facts_in_one_batch_are_all_kept_and_resolved_by_time(caller):
    retain(
        bank=caller.bank,
        items=[
            RetainItem(content="Carol works at Initech.", occurred_at=T0),
            RetainItem(content="Carol works at Initech, on payroll.", occurred_at=T0 + days(1)),
            RetainItem(content="Carol works at Globex.", occurred_at=T0 + days(30)),
            RetainItem(content="Carol works at Globex now.", occurred_at=T0 + days(31)),
        ],
    )
    bank_extract(bank=caller.bank)
    consolidate(bank=caller.bank, now=T0 + days(32))
    assert Fact.objects.filter(bank=caller.bank, predicate="works at").count() == 4
    states = dict(Belief.objects.filter(bank=caller.bank).values_list("object_key", "status"))
    assert states == {"initech": "invalidated", "globex": "active"}


@pytest.mark.django_db(transaction=True)
def test_consolidation_of_one_bank_is_serialised():
    caller = make_caller()
    remember(caller.bank, [alert("DiskIOHigh", "db-3", T0 + days(n)) for n in range(3)])
    retain(bank=caller.bank, items=[alert("DiskIOHigh", "db-3", T0 + days(9))])
    bank_extract(bank=caller.bank)
    # Another session holds the bank's lock: consolidation reports busy and writes nothing.
    params = connection.get_connection_params()
    with psycopg.connect(**{k: v for k, v in params.items() if k != "cursor_factory"}, autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(7301, %s)", [caller.bank.pk])
        result = consolidate(bank=caller.bank, now=T0 + days(10))
        assert result.busy and result.facts == 0 and result.remaining == 1
        other.execute("SELECT pg_advisory_unlock(7301, %s)", [caller.bank.pk])
    assert consolidate(bank=caller.bank, now=T0 + days(10)).facts == 1
    assert Belief.objects.get(bank=caller.bank).proof_count == 4


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_chunk_leaves_no_half_written_belief(monkeypatch):
    caller = make_caller()
    retain(bank=caller.bank, items=[alert("DiskIOHigh", "db-3", T0 + days(n)) for n in range(4)])
    bank_extract(bank=caller.bank)
    from beliefs.services import consolidate as module

    def die(*args, **kwargs):
        raise SystemExit("worker killed")

    monkeypatch.setattr(module.BeliefVersion.objects, "create", die)  # dies after the belief row was written
    with pytest.raises(SystemExit):
        consolidate(bank=caller.bank, now=T0 + days(5))
    assert not Belief.objects.filter(bank=caller.bank).exists()
    assert not Evidence.objects.filter(bank=caller.bank).exists()
    assert Fact.objects.filter(bank=caller.bank, consolidated_at__isnull=True).count() == 4
    monkeypatch.undo()
    assert consolidate(bank=caller.bank, now=T0 + days(5)).beliefs_formed == 1
    assert Belief.objects.get(bank=caller.bank).proof_count == 4


def test_deleting_evidence_episodes_lowers_proof_count_and_retracts_an_unsupported_belief(caller):
    from beliefs.services.forget.episodes import episode_delete

    remember(caller.bank, [dismissal("CpuSpike", "web-1", T0 + days(n)) for n in range(3)])
    belief = Belief.objects.get(bank=caller.bank)
    episode_ids = list(Evidence.objects.filter(belief=belief).values_list("episode_id", flat=True))

    episode_delete(bank=caller.bank, episode_id=episode_ids[0])
    belief.refresh_from_db()
    # Re-assessed at the wall clock: these January dismissals are past the 90-day horizon by now.
    assert belief.proof_count == 2 and belief.status == "stale"
    last = belief.versions.order_by("-version").first()
    assert (last.cause, last.old_proof_count, last.new_proof_count) == ("evidence_removed", 3, 2)

    for pk in episode_ids[1:]:
        episode_delete(bank=caller.bank, episode_id=pk)
    belief.refresh_from_db()
    assert belief.status == "retracted" and belief.proof_count == 0 and belief.confidence == 0.0
    assert not Evidence.objects.filter(belief=belief).exists()
    assert not Fact.objects.filter(bank=caller.bank).exists()
