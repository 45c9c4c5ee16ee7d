"""Exporters registered by name."""
