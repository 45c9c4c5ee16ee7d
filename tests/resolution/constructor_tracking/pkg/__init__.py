"""User management."""
