"""A click-like command group."""
