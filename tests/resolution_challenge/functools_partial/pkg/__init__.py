"""Outgoing notifications."""
