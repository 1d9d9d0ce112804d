"""The two flagship workloads (anomaly triage, churn plays) and gated distillation, thin over the engine."""
