"""Recall request options for each evaluated mode: the full engine, baselines, ablations.

Baselines are single channels with reranking off, so each is exactly that channel's
own ranking packed into the budget.
"""

SINGLE = {"rerank": False}

# The benchmark scores evidence *episodes*; beliefs and facts are measured by bench_consolidation.
_EPISODES = {"kinds": ["episode"]}

_MODES = {
    "full": {},
    "keyword": {"channels": ["keyword"], **SINGLE},
    "semantic": {"channels": ["semantic"], **SINGLE},
    "recent": {"channels": ["recent"], **SINGLE},
    "full-no-rerank": {"rerank": False},
    "full-no-temporal": {"channels": ["semantic", "keyword", "graph"]},
    "full-no-graph": {"channels": ["semantic", "keyword", "temporal"]},
    "semantic+keyword": {"channels": ["semantic", "keyword"]},
    "graph": {"channels": ["graph"], **SINGLE},
    "temporal": {"channels": ["temporal"], **SINGLE},
    # Mechanisms the API does not switch: in-process settings (see eval_locomo.py).
    "full-no-subject": {"settings": {"RECALL_SUBJECT_WEIGHT": 0.0}},
    "full+coverage": {"settings": {"RECALL_COVERAGE": 0.3}},
    "full+feedback": {"settings": {"RECALL_FEEDBACK": 0.75}},
    "full+hop": {"settings": {"RECALL_HOP_WEIGHT": 0.1}},
    "full+ceiling": {"settings": {"RECALL_LEXICAL_CEILING": 1.0}},
    "full+ceiling-half": {"settings": {"RECALL_LEXICAL_CEILING": 0.5}},
    # The graph channel as it was: seeded by entities of every kind, names included.
    "full+graph-all-kinds": {"settings": {"RECALL_GRAPH_SEED_KINDS": ()}},
    "full+fetch": {"settings": {"RECALL_HOP_FETCH": 8}},
    "full+neighbour": {"settings": {"RECALL_NEIGHBOUR_TOKENS": 40}},
    "full+fetch+neighbour": {"settings": {"RECALL_HOP_FETCH": 8, "RECALL_NEIGHBOUR_TOKENS": 40}},
    "full+feedback+hop": {"settings": {"RECALL_FEEDBACK": 0.75, "RECALL_HOP_WEIGHT": 0.1}},
    "full+all": {"settings": {"RECALL_FEEDBACK": 0.75, "RECALL_HOP_WEIGHT": 0.1, "RECALL_COVERAGE": 0.3}},
}
MODES = {name: {**_EPISODES, **options} for name, options in _MODES.items()}

DEFAULT = "full,keyword,semantic,recent"
