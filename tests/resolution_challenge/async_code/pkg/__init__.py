"""Async synchronisation with the shop API."""
