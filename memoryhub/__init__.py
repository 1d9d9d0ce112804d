"""MemoryHub: a self-hosted memory service for AI agents."""

import os

# One thread per numerical library and process. MemoryHub's matrix products are small (a few hundred
# vectors per recall); OpenBLAS' idle workers spin on a core for a while after each one, and on two cores
# that took the core PostgreSQL needed (90 ms of spinning per 100 ms recall). Set before numpy loads.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

from memoryhub.celery import app as celery_app  # noqa: E402

__all__ = ["celery_app"]
