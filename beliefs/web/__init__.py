"""Dashboard pages for a bank's memory: overview, beliefs, episodes, recall, mental models, workloads."""
