"""Fixtures filled in by the tests that need them."""
