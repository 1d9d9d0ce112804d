"""The workloads over the API: anomaly events and triage, churn interventions and outcomes, lessons."""
