"""The embedding model's process set-up."""

import gc
import json
import os
import subprocess
import sys

from memoryhub.embeddings import model_loaded, warm_up
from tests.processes import ROOT


def test_warm_up_loads_the_model_and_hides_the_long_lived_heap_from_the_collector():
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    warm_up()
    assert model_loaded()
    # The model, Django and imported code: hundreds of thousands of objects a full collection no longer walks.
    assert gc.get_freeze_count() > 100_000
    cycle = []
    cycle.append(cycle)
    del cycle
    assert gc.collect() >= 1  # what is made afterwards is still collected


def test_importing_memoryhub_keeps_numerical_libraries_to_one_thread():
    # Without the limit OpenBLAS starts a worker per core that spins after every matrix product.
    limits = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}
    env = {name: value for name, value in os.environ.items() if name not in limits}
    code = (
        "import json, memoryhub, numpy, threadpoolctl;"
        "print(json.dumps(sorted({p['num_threads'] for p in threadpoolctl.threadpool_info()})))"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [1]
