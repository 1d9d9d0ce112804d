"""Recall request options for each evaluated mode: the full engine, baselines, ablations."""

MODES = {
    "full": {},
    "keyword": {"channels": ["keyword"]},
    "semantic": {"channels": ["semantic"]},
    "recent": {"channels": ["recent"]},
}
