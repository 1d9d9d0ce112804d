"""Review items and audit events arrive with the workloads and governance features."""
