"""The audit trail: who did what, when, from which request (identifiers and counts, never content)."""
