from beliefs.models.entities import Entity, EpisodeEntity
from beliefs.models.episodes import Episode, Provenance
from beliefs.models.jobs import RetainBatch
from beliefs.models.search import BankTerm, BankTextStats

__all__ = ["BankTerm", "BankTextStats", "Entity", "Episode", "EpisodeEntity", "Provenance", "RetainBatch"]
