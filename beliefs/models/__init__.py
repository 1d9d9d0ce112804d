from beliefs.models.beliefs import Belief, BeliefVersion, Evidence
from beliefs.models.entities import Entity, EpisodeEntity
from beliefs.models.episodes import Episode, EpisodeExtraction, Provenance
from beliefs.models.erasure import ErasureRequest, Tombstone
from beliefs.models.facts import Extractor, Fact
from beliefs.models.jobs import DefenseRescan, RetainBatch
from beliefs.models.mental_models import BankUsage, MentalModel, RecallUsageDay
from beliefs.models.plays import Play
from beliefs.models.search import BankTerm, BankTextStats

__all__ = [
    "Play",
    "BankTerm",
    "BankTextStats",
    "BankUsage",
    "Belief",
    "BeliefVersion",
    "DefenseRescan",
    "Entity",
    "Episode",
    "EpisodeEntity",
    "EpisodeExtraction",
    "ErasureRequest",
    "Evidence",
    "Extractor",
    "Fact",
    "MentalModel",
    "Provenance",
    "RecallUsageDay",
    "RetainBatch",
    "Tombstone",
]
