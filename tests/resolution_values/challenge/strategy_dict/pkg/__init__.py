"""Sorting strategies chosen by name."""
