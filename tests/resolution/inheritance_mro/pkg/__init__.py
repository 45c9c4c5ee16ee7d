"""Persistence layer."""
