"""User API."""
