"""Callbacks handed to the standard library."""
