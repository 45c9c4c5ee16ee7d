"""Persistence with a generic in-memory repository."""
