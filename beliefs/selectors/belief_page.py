"""Reads behind the belief page: evidence with its episodes, and what relies on a belief."""

from __future__ import annotations

from dataclasses import dataclass

from banks.models import Bank
from beliefs.extractors import claim_key
from beliefs.models import Belief, BeliefVersion, Evidence, MentalModel, Play


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
