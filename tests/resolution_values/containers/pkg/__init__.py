"""Dispatch through containers."""
