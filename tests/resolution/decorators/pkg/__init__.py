"""Profile web service."""
