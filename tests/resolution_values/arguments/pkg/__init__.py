"""Callbacks passed as arguments."""
