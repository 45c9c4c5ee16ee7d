"""The HTTP layer."""
