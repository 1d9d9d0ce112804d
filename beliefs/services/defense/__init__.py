"""Memory Defense applied to what a bank already stores: re-scans and quarantine release (the detectors are in
``beliefs.defense``)."""
