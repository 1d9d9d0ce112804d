"""Churn: interventions judged on outcomes that arrive late, and plays ranked per segment with sample sizes.

- ``catalogue`` — the bank's plays and their horizons (30–180 days; an intervention may override).
- ``records`` — interventions (each also an episode) and the account graph.
- ``timeline`` — the attribution rule and an intervention's state at a time (pure functions).
- ``outcomes`` — recording an outcome: attributed to one intervention, never counted twice.
- ``scoring`` — stores known outcomes and feeds the segment-effectiveness belief.
- ``recommend`` — plays ranked on outcomes known at ``now``; excluded plays keep their counts.
- ``selectors`` — read queries for the API and the dashboard.
"""

from workloads.churn.catalogue import horizon_for, play_delete, play_get, play_list, play_upsert
from workloads.churn.outcomes import OutcomeRecorded, outcome_record
from workloads.churn.recommend import recommend, segment_counts, wilson
from workloads.churn.records import account_link, intervention_record, related_accounts
from workloads.churn.scoring import interventions_score

__all__ = [
    "OutcomeRecorded",
    "account_link",
    "horizon_for",
    "intervention_record",
    "interventions_score",
    "outcome_record",
    "play_delete",
    "play_get",
    "play_list",
    "play_upsert",
    "recommend",
    "related_accounts",
    "segment_counts",
    "wilson",
]
