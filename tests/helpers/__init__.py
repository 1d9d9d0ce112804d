"""Helpers shared by tests (imported as modules; fixtures stay in the conftest files)."""
