from beliefs.models.episodes import Episode, Provenance
from beliefs.models.jobs import RetainBatch

__all__ = ["Episode", "Provenance", "RetainBatch"]
