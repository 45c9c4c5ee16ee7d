"""Content models."""
