"""Reporting; heavy exporters are imported lazily."""
