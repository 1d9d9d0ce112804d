"""The embedding model's process set-up."""

import gc

from memoryhub.embeddings import model_loaded, warm_up


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
