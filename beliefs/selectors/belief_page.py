"""Reads behind the belief page: evidence with its episodes, and what relies on a belief."""

from __future__ import annotations

from dataclasses import dataclass

from banks.models import Bank
from banks.policy import bank_policy
from beliefs.defense.evidence import HOLD_LABELS, fact_holds
from beliefs.extractors import claim_key
from beliefs.models import Belief, BeliefVersion, Evidence, Fact, MentalModel, Play

HELD_BACK_SHOWN = 20


def belief_evidence(*, bank: Bank, belief: Belief) -> list[Evidence]:
    """Every evidence row of ``belief`` with its episode (text only, no vectors), newest first per stance."""
    return list(
        Evidence.objects.filter(bank=bank, belief=belief)
        .select_related("episode")
        .defer("episode__embedding", "episode__search_vector", "episode__metadata")
        .order_by("stance", "-observed_at", "-id")
    )


def belief_versions(*, bank: Bank, belief: Belief) -> list[BeliefVersion]:
    """Every version of ``belief``, oldest first (the page's timeline and confidence chart)."""
    return list(BeliefVersion.objects.filter(bank=bank, belief=belief).order_by("version"))


@dataclass(frozen=True)
class HeldBack:
    fact: Fact
    stance: str  # what it would have been: "supports" or "contradicts"
    reason: str


def belief_held_back(*, bank: Bank, belief: Belief) -> list[HeldBack]:
    """Facts about ``belief``'s claim that are not evidence (injection markers, untrusted instructions, a provenance
    kept for recall only), newest first, each with the reason under the bank's current policy."""
    policy = bank_policy(bank)
    facts = list(
        Fact.objects.filter(
            bank=bank,
            subject_key=belief.subject_key,
            predicate=belief.predicate,
            object_key=belief.object_key,
            quarantined=True,
        )
        .select_related("episode")
        .defer("embedding", "search_vector", "episode__embedding", "episode__search_vector")
        .order_by("-valid_at", "-id")[:HELD_BACK_SHOWN]
    )
    out = []
    for fact in facts:
        episode = fact.episode
        (hold,) = fact_holds(
            policy=policy,
            provenance=episode.provenance,
            content=episode.content,
            metadata=episode.metadata,
            injection_flags=episode.injection_flags,
            released=episode.quarantine_released_at is not None,
            quotes=[(fact.quote_start, fact.quote_end)],
        )
        reason = HOLD_LABELS.get(hold, "held back when it was extracted") if hold else "held back when it was extracted"
        out.append(HeldBack(fact=fact, stance="contradicts" if fact.negated else "supports", reason=reason))
    return out


@dataclass(frozen=True)
class Dependents:
    mental_models: list[MentalModel]
    plays: list[Play]


def belief_dependents(*, bank: Bank, belief: Belief) -> Dependents:
    """Mental models citing ``belief`` and plays about the same play and segment (workloads add their own
    dependents as panels of the belief page)."""
    models = list(
        MentalModel.objects.filter(bank=bank, source_belief_ids__contains=[belief.pk])
        .only("id", "name", "question", "status", "refreshed_at")
        .order_by("name")
    )
    plays = [
        play
        for play in Play.objects.filter(bank=bank).exclude(play="").only("id", "text", "play", "segment", "created_at")
        if claim_key(f"play {play.play} in segment {play.segment}") == belief.subject_key
    ]
    return Dependents(
        mental_models=models,
        plays=plays,
    )
