"""Memory Defense: find secrets and personal data before anything is written.

``detectors`` declares every kind (a pattern plus, where one exists, a checksum or
validity check); ``scanner`` runs them over the text and over normalised variants
that undo common evasions (Unicode look-alikes, zero-width characters, URL and base64
encoding, secrets split by whitespace); ``apply`` redacts or blocks per bank policy.
"""
