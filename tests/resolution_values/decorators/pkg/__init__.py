"""Decorators applied at definition time."""
