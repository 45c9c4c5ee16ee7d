"""A retry decorator factory."""
