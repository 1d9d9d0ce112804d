"""Anomaly triage: suppress a recurring alert only with a cited, well-proven, uncontested belief.

- ``events`` — typed anomaly events and what a pattern is keyed on (``anomaly.key``).
- ``triage`` — the suppress/investigate decision, its citations and context bundle.
- ``review`` — overturning or accepting a suppression (the comment becomes evidence).
- ``selectors`` — triage decisions (the suppression log) for the API and the dashboard.
"""

from workloads.anomaly.events import ANALYST_EVENTS, EVENT_TEMPLATES, anomaly_event_record, pattern_target
from workloads.anomaly.review import OVERTURN_WEIGHT, suppression_confirm, suppression_overturn
from workloads.anomaly.triage import TriageResult, benign_belief, citation, triage

__all__ = [
    "ANALYST_EVENTS",
    "EVENT_TEMPLATES",
    "OVERTURN_WEIGHT",
    "TriageResult",
    "anomaly_event_record",
    "benign_belief",
    "citation",
    "pattern_target",
    "suppression_confirm",
    "suppression_overturn",
    "triage",
]
