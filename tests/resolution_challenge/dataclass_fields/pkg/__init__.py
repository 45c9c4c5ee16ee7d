"""Scheduled maintenance jobs."""
